import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';

type Db = Kysely<Database> | Transaction<Database>;

/**
 * The kinds of event about a company's watchlist entries: a report named one, or left or came back
 * to the list. They are the only events that carry an entry (src/modules/webhooks/outbox.ts), so the
 * queries select by the entry alone and stay within the partial index.
 */
export const MATCH_EVENT_TYPES = ['watchlist.match', 'submission.exited', 'submission.relisted'] as const;
export type MatchEventType = (typeof MATCH_EVENT_TYPES)[number];

export interface MatchRow {
  id: string;
  type: MatchEventType;
  created_at: Date;
  payload: {
    watchlistEntry: { id: string; label: string };
    report: { id: string; kind: 'report' | 'public_report'; fraudType: string; reportingCompany: string | null };
  };
  /** The entry as it is now; null once the company stopped watching it. */
  entry_id: string | null;
  entry_company_id: string | null;
  entry_label: string | null;
  value_token: string | null;
  ref: string | null;
  ref_token: string | null;
}

/**
 * A page of the events about a company's watchlist entries, newest first. They are the webhook
 * outbox's rows (written whether or not the company has an endpoint), read through the company's
 * index of migration 0037.
 */
export async function listMatches(db: Db, companyId: string, page: { limit: number; offset: number }): Promise<MatchRow[]> {
  const result = await sql<MatchRow>`
    select e.id, e.type, e.created_at, e.payload,
      w.id as entry_id, w.company_id as entry_company_id, w.label as entry_label, w.value_token, w.ref, w.ref_token
    from webhook_events e
    left join watchlist_entries w on w.id = e.watchlist_entry_id
    where e.company_id = ${companyId} and e.watchlist_entry_id is not null
    order by e.created_at desc, e.id desc
    limit ${page.limit} offset ${page.offset}`.execute(db);
  return result.rows;
}

export async function countMatches(db: Db, companyId: string): Promise<number> {
  const result = await sql<{ n: string }>`
    select count(*) as n from webhook_events
    where company_id = ${companyId} and watchlist_entry_id is not null`.execute(db);
  return Number(result.rows[0]?.n ?? 0);
}
