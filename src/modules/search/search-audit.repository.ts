import { type Kysely, sql } from 'kysely';
import { ASYNC_COMMIT } from '../../db/async-commit.js';
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
    ...auditRecordOf(r),
    label: r.label,
    digest: r.blindIndex.toString('hex'),
    result_count: r.resultCount,
  }));
  await sql`
    insert into audit_events (company_id, operator_id, key_id, user_id, action, label, blind_index, result_count, request_id)
    select i.company_id, i.operator_id, i.key_id, i.user_id, 'search', i.label, decode(i.digest, 'hex'), i.result_count, i.request_id
    from json_to_recordset(${JSON.stringify(items)}::json)
      as i(${AUDIT_RECORD_COLUMNS}, label text, digest text, result_count int),
      ${ASYNC_COMMIT}`.execute(db);
}

/** Who searched, as the audit row's columns in a JSON record (auditRecordOf; read with AUDIT_RECORD_COLUMNS). */
export const auditRecordOf = (a: SearchAudit) => ({
  company_id: a.companyId,
  operator_id: a.operatorId,
  key_id: a.keyId,
  user_id: a.userId,
  request_id: a.requestId,
});

/** The column definitions of auditRecordOf's fields, for `json_to_recordset(...) as x(...)`. */
export const AUDIT_RECORD_COLUMNS = sql`company_id uuid, operator_id uuid, key_id uuid, user_id uuid, request_id text`;
