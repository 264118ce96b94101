import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../src/db/migrate.js';
import bankData from '../src/modules/banks/banks.data.json' with { type: 'json' };
import { buildTestApp, type TestApp } from './helpers/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

describe('GET /api/v1/meta-data/banks', () => {
  it('lists the banks in the envelope with the fixed message, without a key', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/meta-data/banks' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.success).toBe(true);
    expect(body.message).toBe('Banks fetched successfully');
    expect(Object.keys(body.data)).toEqual(['entity']);
    for (const bank of body.data.entity) {
      expect(Object.keys(bank).sort()).toEqual(['code', 'id', 'name', 'slug']);
      expect(typeof bank.id).toBe('string');
      expect(bank.code).toMatch(/^\d+$/);
    }
  });

  it('ships at least 100 real institutions, including the mobile-money operators', async () => {
    const { entity } = (await t.app.inject({ method: 'GET', url: '/api/v1/meta-data/banks' })).json().data;
    expect(entity.length).toBeGreaterThanOrEqual(100);
    expect(entity.length).toBe(bankData.banks.length);
    const byName = new Map(entity.map((b: { name: string; code: string }) => [b.name, b.code]));
    expect(byName.get('Access Bank')).toBe('044');
    expect(byName.get('Zenith Bank')).toBe('057');
    const slugs = entity.map((b: { slug: string }) => b.slug);
    for (const slug of ['opay', 'palmpay', 'kuda-microfinance-bank', 'moniepoint-microfinance-bank']) {
      expect(slugs).toContain(slug);
    }
  });

  it('sorts by name alphabetically whatever the case, with unique kebab-case slugs and unique ids', async () => {
    const { entity } = (await t.app.inject({ method: 'GET', url: '/api/v1/meta-data/banks' })).json().data;
    const names: string[] = entity.map((b: { name: string }) => b.name.toLowerCase());
    const sorted = [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    expect(names).toEqual(sorted);
    const abbey = names.indexOf('abbey mortgage bank');
    expect(abbey).toBeGreaterThan(names.indexOf('ab microfinance bank'));
    expect(abbey).toBeLessThan(names.indexOf('aku microfinance bank'));
    const slugs = entity.map((b: { slug: string }) => b.slug);
    expect(new Set(slugs).size).toBe(slugs.length);
    for (const slug of slugs) expect(slug).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    expect(new Set(entity.map((b: { id: string }) => b.id)).size).toBe(entity.length);
  });

  it('sends an ETag and Cache-Control, and 304 for a matching If-None-Match', async () => {
    const first = await t.app.inject({ method: 'GET', url: '/api/v1/meta-data/banks' });
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^".+"$/);
    expect(first.headers['cache-control']).toContain('max-age=');
    const again = await t.app.inject({ method: 'GET', url: '/api/v1/meta-data/banks', headers: { 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers.etag).toBe(etag);
    const weak = await t.app.inject({
      method: 'GET',
      url: '/api/v1/meta-data/banks',
      headers: { 'if-none-match': `"other", W/${etag}` },
    });
    expect(weak.statusCode).toBe(304);
    const stale = await t.app.inject({ method: 'GET', url: '/api/v1/meta-data/banks', headers: { 'if-none-match': '"stale"' } });
    expect(stale.statusCode).toBe(200);
  });

  it('loads the list idempotently: migrating again keeps the same rows and ids', async () => {
    const before = (await t.app.inject({ method: 'GET', url: '/api/v1/meta-data/banks' })).json().data.entity;
    await migrateToLatest(t.database.db);
    const rows = await t.database.db.selectFrom('banks').select(['id', 'slug']).execute();
    const idsBySlug = (list: Array<{ id: string; slug: string }>) => Object.fromEntries(list.map((b) => [b.slug, b.id]));
    expect(idsBySlug(rows)).toEqual(idsBySlug(before));
    expect(rows).toHaveLength(before.length);
  });
});
