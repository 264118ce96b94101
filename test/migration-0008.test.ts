import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import * as migration0008 from '../src/db/migrations/2026_11_23_0008_masked_reasons_keyed_request_digests.js';
import * as migration0018 from '../src/db/migrations/2026_11_27_0018_report_cards.js';
import { createCompany, key } from './helpers/principals.js';
import { createReport, reportBody } from './helpers/reports.js';
import { buildTestApp } from './helpers/test-app.js';

describe('migration 0008', () => {
  it('backfills the masked reason of existing reports and erases unkeyed request digests', async () => {
    const t = await buildTestApp();
    try {
      const company = await createCompany(t);
      const report = await createReport(t, company.apiKey);
      const db = t.database.db;
      // The schema as before 0008 (later migrations are left in place: 0008's own step is run again),
      // but for 0018's report cards, whose functions read the column: down first, up again after.
      await migration0018.down(db);
      for (const table of ['reports', 'public_reports'])
        await sql`alter table ${sql.table(table)} drop column fraud_reason_masked`.execute(db);
      // A report and an idempotency row as an earlier version wrote them.
      const reason = 'Paid into 0010246780 and called from 0803 555 1234, mail ada@example.com, twice.';
      await sql`update reports set fraud_reason = ${reason} where id = ${report.id}`.execute(db);
      const plainDigest = randomBytes(32);
      await sql`insert into idempotency_keys (company_id, key, request_hash, state)
        values (${company.companyId}, 'before-0008', ${plainDigest}, 'done')`.execute(db);

      await migration0008.up(db);
      await migration0018.up(db);
      const { rows } = await sql<{
        fraud_reason_masked: string;
      }>`select fraud_reason_masked from reports where id = ${report.id}`.execute(db);
      expect(rows[0]?.fraud_reason_masked).toBe(
        'Paid into ********80 and called from *********34, mail a***@example.com, twice.',
      );
      const idem = await sql<{
        request_hash: Buffer;
      }>`select request_hash from idempotency_keys where key = 'before-0008'`.execute(db);
      expect(Buffer.from(idem.rows[0]?.request_hash as Buffer).equals(Buffer.alloc(32))).toBe(true);
    } finally {
      await t.close();
    }
  });

  it('replays a row whose digest it erased by its key alone, for the rest of its 24 hours', async () => {
    const t = await buildTestApp();
    try {
      const company = await createCompany(t);
      const headers = { ...key(company.apiKey), 'idempotency-key': 'erased-digest' };
      const post = (payload: object) => t.app.inject({ method: 'POST', url: '/api/v1/external/reports', headers, payload });
      const first = await post(reportBody());
      expect(first.statusCode).toBe(201);
      await sql`update idempotency_keys set request_hash = ${Buffer.alloc(32)} where key = 'erased-digest'`.execute(
        t.database.db,
      );
      // The body cannot be compared any more (the old digest was unkeyed): the stored response is replayed.
      const again = await post(reportBody({ fraudType: 'theft' }));
      expect(again.statusCode).toBe(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.json().data.id).toBe(first.json().data.id);
    } finally {
      await t.close();
    }
  });
});
