import { sql } from 'kysely';
import { expect } from 'vitest';
import { localPhone } from './identifiers.js';
import { createCompany, key } from './principals.js';
import type { TestApp } from './test-app.js';

/** A member watching one phone number of a customer, with a reference of its own. */
export async function watchingMember(t: TestApp, options: { businessName?: string; ref?: string } = {}) {
  const bank = await createCompany(t, { businessName: options.businessName ?? `Watching Bank ${process.hrtime.bigint()}` });
  const phone = localPhone();
  const added = await t.app.inject({
    method: 'POST',
    url: '/api/v1/external/watchlist',
    headers: key(bank.apiKey),
    payload: { items: [{ label: 'phone', value: phone, ref: options.ref ?? 'Customer 12' }] },
  });
  expect(added.statusCode, added.body).toBe(200);
  return { bank, phone };
}

/**
 * The alerts job tells only events a minute old (WATCHLIST_ALERT_SETTLE_SECONDS): a company's events,
 * and the times its people were told up to, are moved two minutes back together (their order kept).
 */
export async function ageWatchlistEvents(t: TestApp, companyId: string): Promise<void> {
  const db = t.database.db;
  await sql`update webhook_events set created_at = created_at - interval '2 minutes' where company_id = ${companyId}`.execute(db);
  await sql`update users set watchlist_alerts_after = watchlist_alerts_after - interval '2 minutes'
    where company_id = ${companyId}`.execute(db);
}
