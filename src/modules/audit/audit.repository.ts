import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';

type Db = Kysely<Database> | Transaction<Database>;

export type AuditAction = 'search' | 'decode' | 'create' | 'publish' | 'exit' | 'relist' | (string & {});

export interface AuditEntry {
  companyId?: string | undefined;
  operatorId?: string | undefined;
  /** The key that acted; null when a user's session did. */
  keyId: string | null;
  /** The user whose session acted (every audit row from a session names its user). */
  userId?: string | null | undefined;
  requestId: string;
  action: AuditAction;
  reportId?: string | undefined;
  label?: string | undefined;
  /** The blind index searched for: enough to tell which searches asked for the same value, never the value. */
  blindIndex?: Buffer | undefined;
  resultCount?: number | undefined;
}

/** The row an audit entry is stored as (also written by statements that insert it alongside their change). */
export function auditRow(entry: AuditEntry) {
  return {
    company_id: entry.companyId ?? null,
    operator_id: entry.operatorId ?? null,
    key_id: entry.keyId,
    user_id: entry.userId ?? null,
    request_id: entry.requestId,
    action: entry.action,
    report_id: entry.reportId ?? null,
    label: entry.label ?? null,
    blind_index: entry.blindIndex ?? null,
    result_count: entry.resultCount ?? null,
  };
}

/** Writes audit rows; inside the caller's transaction when there is one, so the row lands with the change. */
export async function recordAudit(db: Db, entry: AuditEntry): Promise<void> {
  await db.insertInto('audit_events').values(auditRow(entry)).execute();
}

export interface AuditPage {
  rows: Array<{
    id: string;
    action: string;
    key_id: string | null;
    user_id: string | null;
    label: string | null;
    blind_index: Buffer | null;
    report_id: string | null;
    result_count: number | null;
    request_id: string;
    created_at: Date;
  }>;
  total: number;
}

export async function listCompanyAudit(
  db: Db,
  companyId: string,
  filters: { action?: string | undefined; from?: Date | undefined; before?: Date | undefined },
  offset: number,
  limit: number,
): Promise<AuditPage> {
  let query = db.selectFrom('audit_events').where('company_id', '=', companyId);
  if (filters.action) query = query.where('action', '=', filters.action);
  if (filters.from) query = query.where('created_at', '>=', filters.from);
  if (filters.before) query = query.where('created_at', '<', filters.before);
  const [rows, count] = await Promise.all([
    query
      .select([
        'id',
        'action',
        'key_id',
        'user_id',
        'label',
        'blind_index',
        'report_id',
        'result_count',
        'request_id',
        'created_at',
      ])
      .orderBy('id', 'desc')
      .offset(offset)
      .limit(limit)
      .execute(),
    query.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows: rows.map((r) => ({ ...r, id: String(r.id) })), total: count.total };
}
