import { type Insertable, type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import type { Database, ReportIdentifiersTable, ReportsTable } from '../../db/schema.js';
import type { auditRow } from '../audit/audit.repository.js';
import type { FraudType, ListingStatus, ReportStatus } from './report-values.js';

type Db = Kysely<Database> | Transaction<Database>;

/** Read for the owner and operators, who see the reason whole; only search reads the masked copy. */
/** A report as its owner and the operators read it; the renewal statement is kept for the record, not shown. */
export type ReportRow = Omit<
  Selectable<ReportsTable>,
  'fraud_reason_masked' | 'renewal_statement' | 'renewal_statement_token'
> & {
  business_name: string;
};
export type IdentifierRow = Pick<Selectable<ReportIdentifiersTable>, 'id' | 'report_id' | 'position' | 'label' | 'value_token'>;

export type NewIdentifier = Insertable<ReportIdentifiersTable>;

const reportColumns = [
  'reports.id',
  'reports.company_id',
  'reports.user_id',
  'reports.fraud_type',
  'reports.fraud_reason',
  'reports.fraud_reason_token',
  'reports.show_uploader_info',
  'reports.attachments',
  'reports.status',
  'reports.published_at',
  'reports.listing_status',
  'reports.exited_list_at',
  'reports.exit_list_reason',
  'reports.exit_list_reason_token',
  'reports.exited_by_dispute_id',
  'reports.exited_by_operator_id',
  'reports.renewed_at',
  'reports.created_at',
  'reports.updated_at',
  'companies.business_name',
] as const;

export interface NewReport {
  id: string;
  company_id: string;
  user_id: string | null;
  fraud_type: FraudType;
  fraud_reason_token: string;
  fraud_reason_masked: string;
  show_uploader_info: boolean;
  attachments: string[];
  status: ReportStatus;
}

/**
 * A new report, its identifiers and its audit row in one statement: one round trip, atomic without
 * BEGIN/COMMIT (a statement is its own transaction). Creating through a transaction of four
 * statements cost five round trips, and at 50 concurrent creates the server mostly waited for Node.
 */
export async function insertReportWithIdentifiers(
  db: Db,
  report: NewReport,
  identifiers: NewIdentifier[],
  audit: ReturnType<typeof auditRow>,
): Promise<Selectable<ReportsTable>> {
  let query = db
    .with('new_report', (qb) =>
      qb
        .insertInto('reports')
        .values({ ...report, published_at: report.status === 'published' ? sql<Date>`now()` : null })
        .returningAll(),
    )
    .with('new_audit', (qb) => qb.insertInto('audit_events').values(audit));
  if (identifiers.length > 0) {
    query = query.with('new_identifiers', (qb) => qb.insertInto('report_identifiers').values(identifiers)) as typeof query;
  }
  return query.selectFrom('new_report').selectAll().executeTakeFirstOrThrow() as Promise<Selectable<ReportsTable>>;
}

export async function insertIdentifiers(trx: Transaction<Database>, rows: NewIdentifier[]): Promise<void> {
  if (rows.length > 0) await trx.insertInto('report_identifiers').values(rows).execute();
}

export async function deleteIdentifiers(trx: Transaction<Database>, reportId: string): Promise<void> {
  await trx.deleteFrom('report_identifiers').where('report_id', '=', reportId).execute();
}

/** One report with its company name; `companyId` restricts it to that company's own reports. */
export function findReport(db: Db, id: string, companyId: string | undefined, forUpdate = false): Promise<ReportRow | undefined> {
  let query = db
    .selectFrom('reports')
    .innerJoin('companies', 'companies.id', 'reports.company_id')
    .select(reportColumns)
    .where('reports.id', '=', id);
  if (companyId !== undefined) query = query.where('reports.company_id', '=', companyId);
  if (forUpdate) query = query.forUpdate('reports');
  return query.executeTakeFirst();
}

export function findIdentifiers(db: Db, reportIds: string[]): Promise<IdentifierRow[]> {
  if (reportIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('report_identifiers')
    .select(['id', 'report_id', 'position', 'label', 'value_token'])
    .where('report_id', 'in', reportIds)
    .orderBy('report_id')
    .orderBy('position')
    .execute();
}

export interface SubmissionFilters {
  companyId: string;
  fraudType?: FraudType | undefined;
  status?: ReportStatus | undefined;
  listingStatus?: ListingStatus | undefined;
  from?: Date | undefined;
  /** Exclusive upper bound (the service turns an inclusive date into the next instant). */
  before?: Date | undefined;
}

function filtered(db: Db, f: SubmissionFilters) {
  let query = db.selectFrom('reports').where('reports.company_id', '=', f.companyId);
  if (f.fraudType) query = query.where('reports.fraud_type', '=', f.fraudType);
  if (f.status) query = query.where('reports.status', '=', f.status);
  if (f.listingStatus) query = query.where('reports.listing_status', '=', f.listingStatus);
  if (f.from) query = query.where('reports.created_at', '>=', f.from);
  if (f.before) query = query.where('reports.created_at', '<', f.before);
  return query;
}

/**
 * How many submissions match, as a subquery: without a date range, a sum over the few rows of
 * `report_counts` (kept by a trigger); with one, a count of the reports in that range.
 */
function total(db: Db, f: SubmissionFilters) {
  if (f.from || f.before) return filtered(db, f).select(sql<number>`count(*)`.as('n'));
  let counts = db.selectFrom('report_counts').where('company_id', '=', f.companyId);
  if (f.fraudType) counts = counts.where('fraud_type', '=', f.fraudType);
  if (f.status) counts = counts.where('status', '=', f.status);
  if (f.listingStatus) counts = counts.where('listing_status', '=', f.listingStatus);
  return counts.select(sql<number>`coalesce(sum(n), 0)::int8`.as('n'));
}

export async function countSubmissions(db: Db, filters: SubmissionFilters): Promise<number> {
  const row = await total(db, filters).executeTakeFirstOrThrow();
  return row.n;
}

/** A page of submissions, each row carrying the total of all matches (counted in the same snapshot). */
export function listSubmissions(
  db: Db,
  filters: SubmissionFilters,
  offset: number,
  limit: number,
): Promise<Array<ReportRow & { total: number }>> {
  return (
    filtered(db, filters)
      .innerJoin('companies', 'companies.id', 'reports.company_id')
      .select(reportColumns)
      // A scalar subquery in the same statement, so the total and the page see the same snapshot.
      .select(sql<number>`(${total(db, filters)})`.as('total'))
      .orderBy('reports.created_at', 'desc')
      .orderBy('reports.id', 'desc')
      .offset(offset)
      .limit(limit)
      .execute()
  );
}

export interface ReportChanges {
  fraud_type?: string;
  fraud_reason?: null;
  fraud_reason_token?: string;
  fraud_reason_masked?: string;
  show_uploader_info?: boolean;
  attachments?: string[];
  user_id?: string | null;
  status?: ReportStatus;
  published_at?: Date;
  listing_status?: ListingStatus;
  exited_list_at?: Date | null;
  exit_list_reason?: string | null;
  exit_list_reason_token?: string | null;
  renewed_at?: Date;
  renewal_statement?: null;
  renewal_statement_token?: string;
  exited_by_dispute_id?: string | null;
  exited_by_operator_id?: string | null;
}

export async function updateReport(trx: Transaction<Database>, id: string, changes: ReportChanges): Promise<void> {
  await trx
    .updateTable('reports')
    .set({ ...changes, updated_at: sql`now()` })
    .where('id', '=', id)
    .execute();
}
