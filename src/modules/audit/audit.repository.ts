import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';
import { SYSTEM_KEY_ID } from '../../jobs/system-actor.js';

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
  /** The key, user or webhook endpoint an administrative change was made to. */
  subjectId?: string | undefined;
}

/** Who made an administrative change, as the routes know it: written with the change (recordChange). */
export interface ChangeActor {
  keyId: string | null;
  userId: string | null;
  operatorId?: string | undefined;
  requestId: string;
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
    ...(entry.subjectId ? { subject_id: entry.subjectId } : {}),
  };
}

/**
 * An administrative change in the trail of the company it concerns (or of no company: an operator's
 * own key or user), in the caller's transaction. Without an actor (the command line on the service's
 * machine, a company's first key) nothing is written: the trail is of what keys and accounts did.
 */
export async function recordChange(
  db: Db,
  actor: ChangeActor | undefined,
  change: { companyId: string | null; action: AuditAction; subjectId: string },
): Promise<void> {
  if (!actor) return;
  await recordAudit(db, {
    ...actor,
    companyId: change.companyId ?? undefined,
    action: change.action,
    subjectId: change.subjectId,
  });
}

/**
 * A person's change to their own account (a new password by a link, new recovery codes), in their
 * member's trail (or the operators'), naming them as actor and subject.
 */
export async function recordOwnChange(
  db: Db,
  person: { id: string; company_id: string | null; operator_id: string | null },
  requestId: string,
  action: AuditAction,
): Promise<void> {
  await recordAudit(db, {
    companyId: person.company_id ?? undefined,
    operatorId: person.operator_id ?? undefined,
    keyId: null,
    userId: person.id,
    requestId,
    action,
    subjectId: person.id,
  });
}

/** Writes audit rows; inside the caller's transaction when there is one, so the row lands with the change. */
export async function recordAudit(db: Db, entry: AuditEntry): Promise<void> {
  await recordAudits(db, [entry]);
}

/** Several audit rows in one statement (a dispute's step is in both companies' trails). */
export async function recordAudits(db: Db, entries: readonly AuditEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await db.insertInto('audit_events').values(entries.map(auditRow)).execute();
}

export interface AuditPage {
  rows: Array<{
    id: string;
    action: string;
    key_id: string | null;
    user_id: string | null;
    actor: AuditActor;
    label: string | null;
    blind_index: Buffer | null;
    report_id: string | null;
    result_count: number | null;
    request_id: string;
    subject_id: string | null;
    created_at: Date;
  }>;
  total: number;
}

/**
 * Who acted, as a company's own trail may say it: its own key or user (named by id), another member
 * or the operators (a dispute's steps are written into both companies' trails), or a background
 * job. Another party's key and user ids are never given: they are the other company's objects.
 */
export type AuditActor = 'company' | 'another_member' | 'operators' | 'system';

export async function listCompanyAudit(
  db: Db,
  companyId: string,
  filters: {
    action?: string | undefined;
    excludeAction?: string | undefined;
    from?: Date | undefined;
    before?: Date | undefined;
  },
  offset: number,
  limit: number,
): Promise<AuditPage> {
  let query = db.selectFrom('audit_events').where('company_id', '=', companyId);
  if (filters.action) query = query.where('action', '=', filters.action);
  if (filters.excludeAction) query = query.where('action', '<>', filters.excludeAction);
  if (filters.from) query = query.where('created_at', '>=', filters.from);
  if (filters.before) query = query.where('created_at', '<', filters.before);
  // The page first, then who acted for its rows alone: joined before the offset, every row skipped
  // on the way to a deep page would cost two look-ups too.
  const page = query
    .select([
      'id',
      'action',
      'operator_id',
      'key_id',
      'user_id',
      'label',
      'blind_index',
      'report_id',
      'result_count',
      'request_id',
      'subject_id',
      'created_at',
    ])
    .orderBy('id', 'desc')
    .offset(offset)
    .limit(limit)
    .as('a');
  const [rows, count] = await Promise.all([
    db
      .selectFrom(page)
      .leftJoin('api_keys as k', 'k.id', 'a.key_id')
      .leftJoin('users as u', 'u.id', 'a.user_id')
      .select([
        'a.id',
        'a.action',
        sql<string | null>`case when k.company_id = ${companyId} then a.key_id end`.as('key_id'),
        sql<string | null>`case when u.company_id = ${companyId} then a.user_id end`.as('user_id'),
        sql<AuditActor>`case
          when k.company_id = ${companyId} or u.company_id = ${companyId} then 'company'
          when a.operator_id is not null or k.operator_id is not null or u.operator_id is not null then 'operators'
          when a.user_id is null and (a.key_id is null or a.key_id = ${SYSTEM_KEY_ID}) then 'system'
          else 'another_member' end`.as('actor'),
        'a.label',
        'a.blind_index',
        'a.report_id',
        'a.result_count',
        'a.request_id',
        'a.subject_id',
        'a.created_at',
      ])
      .orderBy('a.id', 'desc')
      .execute(),
    query.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows: rows.map((r) => ({ ...r, id: String(r.id) })), total: count.total };
}
