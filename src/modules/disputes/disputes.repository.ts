import { type Insertable, type Kysely, type Selectable, sql, type Transaction, type Updateable } from 'kysely';
import type { Database, DisputeStatus, DisputesTable } from '../../db/schema.js';

type Db = Kysely<Database> | Transaction<Database>;

export type DisputeRow = Selectable<DisputesTable> & {
  report_company_name: string;
  disputing_company_name: string | null;
  report_fraud_type: string;
  report_published_at: Date | null;
};

function withNames(db: Db) {
  return (
    db
      .selectFrom('disputes')
      .innerJoin('companies as owner', 'owner.id', 'disputes.report_company_id')
      .leftJoin('companies as disputer', 'disputer.id', 'disputes.disputing_company_id')
      // What a person recognises the report by: its fraud type and when it went on the list.
      .innerJoin('reports', 'reports.id', 'disputes.report_id')
      .selectAll('disputes')
      .select([
        'owner.business_name as report_company_name',
        'disputer.business_name as disputing_company_name',
        'reports.fraud_type as report_fraud_type',
        'reports.published_at as report_published_at',
      ])
  );
}

export async function insertDispute(trx: Transaction<Database>, row: Insertable<DisputesTable>): Promise<void> {
  await trx.insertInto('disputes').values(row).execute();
}

export async function findDispute(db: Db, id: string, forUpdate = false): Promise<DisputeRow | undefined> {
  const query = withNames(db).where('disputes.id', '=', id);
  return (forUpdate ? query.forUpdate('disputes') : query).executeTakeFirst();
}

/** Whether this party already has an unresolved dispute on the report. */
export async function hasUnresolved(db: Db, reportId: string, disputingCompanyId: string | null): Promise<boolean> {
  const row = await db
    .selectFrom('disputes')
    .select('id')
    .where('report_id', '=', reportId)
    .where('status', 'in', ['open', 'upheld', 'escalated'])
    .where((eb) =>
      disputingCompanyId === null ? eb('disputing_company_id', 'is', null) : eb('disputing_company_id', '=', disputingCompanyId),
    )
    .executeTakeFirst();
  return row !== undefined;
}

export interface DisputeFilters {
  /** A company's own view: disputes it raised, received, or both. */
  companyId?: string | undefined;
  side?: 'raised' | 'received' | undefined;
  status?: DisputeStatus | undefined;
}

export async function listDisputes(db: Db, f: DisputeFilters, offset: number, limit: number) {
  let query = withNames(db);
  if (f.companyId !== undefined) {
    const companyId = f.companyId;
    query = query.where((eb) => {
      const raised = eb('disputes.disputing_company_id', '=', companyId);
      const received = eb('disputes.report_company_id', '=', companyId);
      if (f.side === 'raised') return raised;
      if (f.side === 'received') return received;
      return eb.or([raised, received]);
    });
  }
  if (f.status) query = query.where('disputes.status', '=', f.status);
  const rows = await query
    .select(sql<number>`count(*) over ()`.as('total'))
    .orderBy('disputes.opened_at', 'desc')
    .orderBy('disputes.id', 'desc')
    .offset(offset)
    .limit(limit)
    .execute();
  return { rows: rows as Array<DisputeRow & { total: number }>, total: Number(rows[0]?.total ?? 0) };
}

export async function updateDispute(trx: Transaction<Database>, id: string, changes: Updateable<DisputesTable>): Promise<void> {
  await trx
    .updateTable('disputes')
    .set({ ...changes, updated_at: sql`now()` })
    .where('id', '=', id)
    .execute();
}

/** Open disputes past their deadline, locked; another instance's run skips them rather than waits. */
export function lockOverdue(trx: Transaction<Database>, now: Date, limit: number) {
  return trx
    .selectFrom('disputes')
    .selectAll()
    .where('status', '=', 'open')
    .where('respond_by', '<', now)
    .orderBy('respond_by')
    .limit(limit)
    .forUpdate()
    .skipLocked()
    .execute();
}
