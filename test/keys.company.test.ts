import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompany, key } from './helpers/principals.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

const KEYS = '/api/v1/external/keys';

describe("a company admin manages the company's own API keys", () => {
  let t: TestApp;
  let company: Awaited<ReturnType<typeof createCompany>>;
  let other: Awaited<ReturnType<typeof createCompany>>;
  beforeAll(async () => {
    t = await buildTestApp({ config: { jobTickSeconds: 0 } });
    company = await createCompany(t);
    other = await createCompany(t);
  });
  afterAll(() => t?.close());

  const post = (url: string, apiKey: string, payload?: object) =>
    t.app.inject({ method: 'POST', url, headers: key(apiKey), ...(payload ? { payload } : {}) });
  const works = async (apiKey: string) => (await t.app.inject({ method: 'GET', url: KEYS, headers: key(apiKey) })).statusCode;

  it('issues a key shown once, rotates it with no grace, and revokes the replacement', async () => {
    const issued = await post(KEYS, company.apiKey);
    expect(issued.statusCode).toBe(201);
    const { apiKey, key: view } = issued.json().data;
    expect(view).toMatchObject({ companyId: company.companyId, status: 'active' });
    expect(await works(apiKey)).toBe(200);
    const listed = await t.app.inject({ method: 'GET', url: KEYS, headers: key(company.apiKey) });
    expect(JSON.stringify(listed.json())).not.toContain(apiKey);

    const rotated = await post(`${KEYS}/${view.id}/rotate`, company.apiKey, { graceHours: 0 });
    expect(rotated.statusCode).toBe(201);
    const replacement = rotated.json().data;
    expect(replacement.previous.replacedBy).toBe(replacement.key.id);
    expect(await works(apiKey)).toBe(401);
    expect(await works(replacement.apiKey)).toBe(200);

    const revoked = await post(`${KEYS}/${replacement.key.id}/revoke`, company.apiKey);
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json().data.key.status).toBe('revoked');
    expect(await works(replacement.apiKey)).toBe(401);
  });

  it('rotates a key that expires into one with the same lifetime, unless told otherwise', async () => {
    const issued = (await post(KEYS, company.apiKey, { expiresInDays: 30 })).json().data.key;
    const rotated = (await post(`${KEYS}/${issued.id}/rotate`, company.apiKey, { graceHours: 0 })).json().data.key;
    const lifetimeDays = (Date.parse(rotated.expiresAt) - Date.parse(rotated.createdAt)) / 86_400_000;
    expect(Math.round(lifetimeDays)).toBe(30);
    const told = (await post(`${KEYS}/${rotated.id}/rotate`, company.apiKey, { graceHours: 0, expiresInDays: 7 })).json().data
      .key;
    expect(Math.round((Date.parse(told.expiresAt) - Date.parse(told.createdAt)) / 86_400_000)).toBe(7);
    const forever = (await post(KEYS, company.apiKey)).json().data.key;
    expect((await post(`${KEYS}/${forever.id}/rotate`, company.apiKey, { graceHours: 0 })).json().data.key.expiresAt).toBeNull();
  });

  it('keeps a 90-day lifetime through a second rotation after a revoked replacement', async () => {
    const first = (await post(KEYS, company.apiKey, { expiresInDays: 90 })).json().data;
    const rotated = (await post(`${KEYS}/${first.key.id}/rotate`, company.apiKey, { graceHours: 2 })).json().data;
    expect((await post(`${KEYS}/${rotated.key.id}/revoke`, company.apiKey)).statusCode).toBe(200);
    const again = (await post(`${KEYS}/${first.key.id}/rotate`, company.apiKey)).json().data.key;
    expect(Math.round((Date.parse(again.expiresAt) - Date.parse(again.createdAt)) / 86_400_000)).toBe(90);
  });

  it('rotates a key again once its replacement is revoked in the grace period, and never lengthens the grace', async () => {
    const first = (await post(KEYS, company.apiKey)).json().data;
    const rotated = (await post(`${KEYS}/${first.key.id}/rotate`, company.apiKey, { graceHours: 2 })).json().data;
    const graceEnd = rotated.previous.expiresAt;
    // While the replacement works, the old key is rotated through it.
    const twice = await post(`${KEYS}/${first.key.id}/rotate`, company.apiKey);
    expect(twice.statusCode).toBe(409);
    expect(twice.json().message).toBe('The API key has already been rotated; rotate its replacement');
    expect((await post(`${KEYS}/${rotated.key.id}/revoke`, company.apiKey)).statusCode).toBe(200);
    // The replacement revoked, the old key (still working) gets a new one instead of a dead end.
    expect(await works(first.apiKey)).toBe(200);
    const again = await post(`${KEYS}/${first.key.id}/rotate`, company.apiKey, { graceHours: 24 });
    expect(again.statusCode).toBe(201);
    // A key that never expired is replaced by one that never expires (not by one of the grace's day).
    expect(again.json().data.key.expiresAt).toBeNull();
    expect(again.json().data.previous).toMatchObject({ replacedBy: again.json().data.key.id, expiresAt: graceEnd });
    expect(await works(again.json().data.apiKey)).toBe(200);
  });

  it("answers another company's key exactly like a random id, and leaves it working", async () => {
    const random = '3f1c0c7e-6a7b-4c5d-9e8f-0a1b2c3d4e5f';
    for (const action of ['rotate', 'revoke']) {
      const theirs = await post(`${KEYS}/${other.keyId}/${action}`, company.apiKey);
      const nobodys = await post(`${KEYS}/${random}/${action}`, company.apiKey);
      expect(theirs.statusCode).toBe(404);
      expect(theirs.json().data.code).toBe(nobodys.json().data.code);
      expect(theirs.json().message).toBe(nobodys.json().message);
    }
    expect(await works(other.apiKey)).toBe(200);
  });
});
