import { createHash, createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evidenceKey } from '../src/crypto/load-crypto.js';
import { createCompany, key } from './helpers/principals.js';
import { buildSiblingApp, buildTestApp, type TestApp } from './helpers/test-app.js';
import { samples, uploadFile } from './helpers/uploads.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest();
const stored = (id: string) =>
  t.database.db.selectFrom('uploads').select(['sha256', 'sha256_keyed']).where('id', '=', id).executeTakeFirstOrThrow();

describe('evidence hashes', () => {
  it('are stored keyed (HMAC), while the uploader is shown the file’s own SHA-256', async () => {
    const company = await createCompany(t);
    const bytes = samples.png();
    const res = await uploadFile(t, company.apiKey, bytes, { filename: 'a.png', contentType: 'image/png' });
    expect(res.statusCode).toBe(201);
    const { id, sha256: shown } = res.json().data;
    expect(shown).toBe(sha256(bytes).toString('hex'));
    const row = await stored(id);
    expect(row.sha256_keyed).toBe(true);
    expect(Buffer.from(row.sha256).equals(sha256(bytes))).toBe(false);
    expect(Buffer.from(row.sha256)).toEqual(createHmac('sha256', evidenceKey(t.app.crypto)).update(sha256(bytes)).digest());
    const described = await t.app.inject({ method: 'GET', url: `/api/v1/external/uploads/${id}`, headers: key(company.apiKey) });
    expect(described.json().data.sha256).toBe(shown);
  });

  it('stored plain before are keyed when the service starts', async () => {
    const company = await createCompany(t);
    const bytes = samples.pdf();
    const { id } = (await uploadFile(t, company.apiKey, bytes, { filename: 'a.pdf', contentType: 'application/pdf' })).json()
      .data;
    await t.database.db
      .updateTable('uploads')
      .set({ sha256: sha256(bytes), sha256_keyed: false })
      .where('id', '=', id)
      .execute();
    const restarted = await buildSiblingApp(t);
    await restarted.close();
    const row = await stored(id);
    expect(row.sha256_keyed).toBe(true);
    expect(Buffer.from(row.sha256)).toEqual(createHmac('sha256', evidenceKey(t.app.crypto)).update(sha256(bytes)).digest());
  });
});
