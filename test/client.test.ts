import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSearchDecode } from '../examples/create-search-decode.js';
import { fileWithRetry } from '../examples/idempotent-retry.js';
import { uploadAndAttach } from '../examples/upload-attach.js';
import { type RedflagEvent, registerEndpoint, startReceiver, verifyRedflagWebhook } from '../examples/verify-webhook.js';
import { createCompany } from './helpers/principals.js';
import { reportBody } from './helpers/reports.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';
import { samples } from './helpers/uploads.js';

const PORT = 4801;
const RECEIVER_PORT = 4798;
let t: TestApp;
let baseUrl: string;
beforeAll(async () => {
  // The example's receiver listens on this machine, so private addresses are allowed here only.
  t = await buildTestApp({ config: { webhookAllowPrivate: true, webhookPollMs: 100 } });
  await t.app.listen({ port: PORT, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${PORT}`;
});
afterAll(() => t.close());

const committed = () => fs.readFileSync(new URL('../client/openapi.json', import.meta.url), 'utf8');

describe('the committed OpenAPI document and typed client', () => {
  it('client/openapi.json is the service’s current document (run `npm run client:generate` when this fails)', async () => {
    const live = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(JSON.parse(committed())).toEqual(live);
  });

  it('the generated types were made from that very document', () => {
    const schema = fs.readFileSync(new URL('../client/src/schema.d.ts', import.meta.url), 'utf8');
    const digest = createHash('sha256').update(committed()).digest('hex');
    expect(schema.split('\n')[0]).toContain(`sha256 ${digest}`);
  });

  it('names every operation once, and says outright which need no key', () => {
    const doc = JSON.parse(committed());
    const ids: string[] = [];
    for (const [path, item] of Object.entries<Record<string, { operationId?: string; security?: unknown[] }>>(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        expect(op.operationId, `${method} ${path}`).toMatch(/^[a-z][A-Za-z0-9]+$/);
        expect(op.security, `${method} ${path}`).toBeDefined();
        ids.push(op.operationId as string);
      }
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect(doc.paths['/api/v1/public/reports'].post.security).toEqual([]);
    expect(doc.paths['/api/v1/external/reports'].post.operationId).toBe('postExternalReports');
  });
});

describe('the examples, run against a listening service', () => {
  it('create → search → decode', async () => {
    const { apiKey } = await createCompany(t);
    const r = await createSearchDecode(baseUrl, apiKey);
    expect(r.summary.totalReports).toBeGreaterThanOrEqual(1);
    expect(r.identifiers).toEqual([expect.objectContaining({ label: 'phone', value: '+2348031234567' })]);
  });

  it('an idempotent retry files the report once', async () => {
    const { apiKey } = await createCompany(t);
    const first = await fileWithRetry(baseUrl, apiKey);
    expect(first.replayed).toBe(false);
    const list = await t.app.inject({
      method: 'GET',
      url: '/api/v1/external/reports/submissions',
      headers: { 'x-api-key': apiKey },
    });
    expect(list.json().data.meta.total).toBe(1);
  });

  it('upload + attach', async () => {
    const { apiKey } = await createCompany(t);
    const pdf = new Blob([samples.pdf()], { type: 'application/pdf' });
    const report = await uploadAndAttach(baseUrl, apiKey, pdf);
    expect(report.attachments).toHaveLength(1);
  });

  it('verify a webhook: a signed watchlist match is accepted, a forged one refused', async () => {
    const watcher = await createCompany(t);
    const reporter = await createCompany(t);
    const events: RedflagEvent[] = [];
    let secret = '';
    const receiver = await startReceiver(
      RECEIVER_PORT,
      () => secret,
      (event) => events.push(event),
    );
    try {
      secret = await registerEndpoint(baseUrl, watcher.apiKey, `http://127.0.0.1:${RECEIVER_PORT}/redflag`);
      expect(secret).toMatch(/^whsec_/);
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/external/watchlist',
        headers: { 'x-api-key': watcher.apiKey },
        payload: { items: [{ label: 'phone', value: '0809 111 2233', ref: 'customer-9' }] },
      });
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/external/reports',
        headers: { 'x-api-key': reporter.apiKey },
        payload: { ...reportBody(), identifiers: [{ label: 'phone', value: '+2348091112233' }] },
      });
      await expect.poll(() => events.length, { timeout: 10_000 }).toBe(1);
      expect(events[0]?.type).toBe('watchlist.match');
      const forged = {
        'webhook-id': 'msg_x',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': 'v1,AAAA',
      };
      expect(() => verifyRedflagWebhook(secret, JSON.stringify(events[0]), forged)).toThrow();
    } finally {
      receiver.close();
    }
  });
});
