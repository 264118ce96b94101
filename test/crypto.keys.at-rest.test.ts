import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { INDEX_LABELS } from '../src/crypto/blind-index.js';
import { dataRowId, EVIDENCE_ROW, indexRowId, PSEUDONYM_ROW, URL_ROW } from '../src/crypto/key-store.js';
import { storedPieces } from './helpers/at-rest.js';
import { createCompany } from './helpers/principals.js';
import { createReport } from './helpers/reports.js';
import { buildTestApp } from './helpers/test-app.js';
import { samples, uploadFile } from './helpers/uploads.js';

describe('keys and evidence hashes at rest', () => {
  it('stores no unwrapped key and no plain SHA-256 of an evidence file, only wrapped keys and keyed hashes', async () => {
    const t = await buildTestApp();
    const company = await createCompany(t);
    await createReport(t, company.apiKey);
    const bytes = samples.png();
    expect((await uploadFile(t, company.apiKey, bytes, { filename: 'a.png', contentType: 'image/png' })).statusCode).toBe(201);
    const store = t.app.crypto.store;
    const keys = [
      dataRowId('k1'),
      URL_ROW,
      PSEUDONYM_ROW,
      EVIDENCE_ROW,
      ...INDEX_LABELS.map((label) => indexRowId(label, 1)),
    ].map((id) => ({ id, key: store.key(id) }));
    await t.close({ keepFiles: true });

    const plainHash = createHash('sha256').update(bytes).digest();
    const needles = [...keys, { id: 'the plain SHA-256 of the upload', key: plainHash }];
    const stored = await storedPieces(t);
    expect(stored.length).toBeGreaterThan(10);
    for (const piece of stored) {
      for (const { id, key } of needles) {
        expect(piece.content.includes(key) || piece.content.includes(key.toString('hex')), `${piece.where} holds ${id}`).toBe(
          false,
        );
      }
    }
  });
});
