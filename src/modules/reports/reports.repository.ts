import { type Insertable, type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import type { Database, ReportIdentifiersTable, ReportsTable } from '../../db/schema.js';
import type { FraudType, ListingStatus, ReportStatus } from './report-values.js';

type Db = Kysely<Database> | Transaction<Database>;

export type ReportRow = Selectable<ReportsTable> & { business_name: string };
export type IdentifierRow = Pick<Selectable<ReportIdentifiersTable>, 'id' | 'report_id' | 'position' | 'label' | 'value_token'>;

export type NewIdentifier = Insertable<ReportIdentifiersTable>;

const reportColumns = [
  'reports.id',
  'reports.company_id',
  'reports.user_id',
  'reports.fraud_type',
  'reports.fraud_reason',
  'reports.show_uploader_info',
  'reports.attachments',
  'reports.status',
  'reports.listing_status',
  'reports.exited_list_at',
  'reports.exit_list_reason',
  'reports.created_at',
  'reports.updated_at',
  'companies.business_name',
] as const;

export async function insertReport(
  trx: Transaction<Database>,
  report: {
    id: string;
    company_id: string;
    user_id: string | null;
    fraud_type: FraudType;
    fraud_reason: string;
    show_uploader_info: boolean;
    attachments: string[];
    status: ReportStatus;
  },
): Promise<Selectable<ReportsTable>> {
  return trx.insertInto('reports').values(report).returningAll().executeTakeFirstOrThrow();
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

export async function countSubmissions(db: Db, filters: SubmissionFilters): Promise<number> {
  const row = await filtered(db, filters).select(sql<number>`count(*)`.as('total')).executeTakeFirstOrThrow();
  return row.total;
}

export function listSubmissions(db: Db, filters: SubmissionFilters, offset: number, limit: number): Promise<ReportRow[]> {
  return filtered(db, filters)
    .innerJoin('companies', 'companies.id', 'reports.company_id')
    .select(reportColumns)
    .orderBy('reports.created_at', 'desc')
    .orderBy('reports.id', 'desc')
    .offset(offset)
    .limit(limit)
    .execute();
}

export interface ReportChanges {
  fraud_type?: string;
  fraud_reason?: string;
  show_uploader_info?: boolean;
  attachments?: string[];
  user_id?: string | null;
  status?: ReportStatus;
  listing_status?: ListingStatus;
  exited_list_at?: Date | null;
  exit_list_reason?: string | null;
}

export async function updateReport(trx: Transaction<Database>, id: string, changes: ReportChanges): Promise<void> {
  await trx
    .updateTable('reports')
    .set({ ...changes, updated_at: sql`now()` })
    .where('id', '=', id)
    .execute();
}
