import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { up as shortenPhoneMasks } from '../src/db/migrations/2026_11_23_0011a_phone_masks.js';
import { filePublicReport, uniquePhone } from './helpers/public-reports.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

describe('masked phones of public reports', () => {
  it('shortens masks stored before (+234803****567) to the calling code and two digits, decrypting nothing', async () => {
    const id = await filePublicReport(t, uniquePhone());
    await sql`update public_reports set
      victim_masked = jsonb_set(victim_masked, '{phone}', '"+234803****567"'),
      guest_info_masked = jsonb_set(guest_info_masked, '{phone}', '"+44207****958"') where id = ${id}::uuid`.execute(
      t.database.db,
    );
    await shortenPhoneMasks(t.database.db);
    const row = await t.database.db
      .selectFrom('public_reports')
      .select(['victim_masked', 'guest_info_masked'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.victim_masked).toMatchObject({ phone: '+234****67', email: 'j***@example.com', amountLost: 250000 });
    expect(row.guest_info_masked).toMatchObject({ phone: '+44****58', name: 'O*** A***' });
  });
});
