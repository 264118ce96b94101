import { type Kysely, sql } from 'kysely';
import type { Database } from '../../db/schema.js';

/** Who searched, for the audit row of each search they make. */
export interface SearchAudit {
  companyId: string | null;
  operatorId: string | null;
  keyId: string | null;
  userId: string | null;
  requestId: string;
}

/** One search's audit row: who, by which label and index (never the value), how many found. */
export interface SearchAuditRow extends SearchAudit {
  label: string;
  /** The identifier's current blind-index digest. */
  blindIndex: Buffer;
  resultCount: number;
}

/**
 * Many searches' audit rows in one statement. It commits without waiting for its WAL flush (README,
 * "Durability"): a search changes nothing but its audit row, and waiting for that flush was a third
 * of the embedded engine's time per search. Rows go in as JSON text, one parameter that both
 * drivers pass alike.
 */
export async function insertSearchAudits(db: Kysely<Database>, rows: readonly SearchAuditRow[]): Promise<void> {
  const items = rows.map((r) => ({
    company_id: r.companyId,
    operator_id: r.operatorId,
    key_id: r.keyId,
    user_id: r.userId,
    label: r.label,
    digest: r.blindIndex.toString('hex'),
    result_count: r.resultCount,
    request_id: r.requestId,
  }));
  await sql`
    insert into audit_events (company_id, operator_id, key_id, user_id, action, label, blind_index, result_count, request_id)
    select i.company_id, i.operator_id, i.key_id, i.user_id, 'search', i.label, decode(i.digest, 'hex'), i.result_count, i.request_id
    from json_to_recordset(${JSON.stringify(items)}::json)
      as i(company_id uuid, operator_id uuid, key_id uuid, user_id uuid, label text, digest text, result_count int, request_id text),
      -- This statement's transaction commits without waiting for its WAL flush.
      (select set_config('synchronous_commit', 'off', true)) as async_commit`.execute(db);
}
