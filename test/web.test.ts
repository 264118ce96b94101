import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEB_ROOT } from '../src/modules/web/web.routes.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

describe('the desk and the public form, as served', () => {
  it.each(['/', '/report'])('%s is a page with a strict CSP, no inline script and no third-party source', async (url) => {
    const res = await t.app.inject({ method: 'GET', url });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(res.headers['cache-control']).toBe('no-store');
    for (const tag of res.body.match(/<script[^>]*>/g) ?? []) expect(tag).toMatch(/src="\/assets\/[a-z]+\.js"/);
    expect(res.body).not.toMatch(/https?:\/\//);
    expect(res.body).not.toMatch(/<style|style="/);
  });

  it('serves the bundles from /assets, and the first load stays under 250 KB of compressed JavaScript', async () => {
    for (const file of ['desk.js', 'report.js']) {
      const res = await t.app.inject({ method: 'GET', url: `/assets/${file}` });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toContain('javascript');
      expect(gzipSync(fs.readFileSync(path.join(WEB_ROOT, file))).length).toBeLessThan(250 * 1024);
    }
  });

  it('does not list the pages in the API document', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(doc.paths['/']).toBeUndefined();
    expect(doc.paths['/report']).toBeUndefined();
  });
});
