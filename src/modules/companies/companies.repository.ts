import { type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import type { CompaniesTable, CompanyStatus, Database } from '../../db/schema.js';
import { PUBLIC_REPORTS_COMPANY_ID } from './public-reports-company.js';

type Db = Kysely<Database> | Transaction<Database>;

export type CompanyRow = Selectable<CompaniesTable>;

const COLUMNS = ['id', 'business_name', 'status', 'rate_limit_per_minute', 'created_at', 'updated_at'] as const;

export function insertCompany(db: Db, values: { businessName: string; rateLimitPerMinute: number | null }): Promise<CompanyRow> {
  return db
    .insertInto('companies')
    .values({ business_name: values.businessName, rate_limit_per_minute: values.rateLimitPerMinute })
    .returning(COLUMNS)
    .executeTakeFirstOrThrow();
}

/**
 * The id of a member company already named `businessName` (case and spacing aside), after taking a
 * transaction-scoped lock on that name so that two creates of one name cannot both see none.
 */
export async function lockAndFindCompanyNamed(trx: Transaction<Database>, businessName: string): Promise<string | undefined> {
  const name = businessName.toLowerCase();
  await sql`select pg_advisory_xact_lock(hashtext(${`company-name:${name}`}))`.execute(trx);
  const row = await trx
    .selectFrom('companies')
    .select('id')
    .where(sql<boolean>`lower(business_name) = ${name}`)
    .where(MEMBER)
    .executeTakeFirst();
  return row?.id;
}

/** The built-in public-reports company is not a member: every function here acts as if it did not exist. */
const MEMBER = sql<boolean>`id <> ${PUBLIC_REPORTS_COMPANY_ID}::uuid`;

export function findCompanyById(db: Db, id: string): Promise<CompanyRow | undefined> {
  return db.selectFrom('companies').select(COLUMNS).where('id', '=', id).where(MEMBER).executeTakeFirst();
}

/**
 * Takes the company's row lock (FOR NO KEY UPDATE) for the rest of the transaction: what is counted
 * per company under it (e.g. its webhook endpoints) cannot be counted by two transactions at once.
 */
export async function lockCompany(trx: Db, companyId: string): Promise<void> {
  await trx.selectFrom('companies').select('id').where('id', '=', companyId).forNoKeyUpdate().execute();
}

/** A page of companies, newest first, with the total count of the filtered list in the same query. */
export async function listCompanies(
  db: Db,
  options: { offset: number; limit: number; status?: CompanyStatus | undefined },
): Promise<{ rows: CompanyRow[]; total: number }> {
  const rows = await db
    .selectFrom('companies')
    .select([...COLUMNS, sql<number>`count(*) over ()`.as('total')])
    .where(MEMBER)
    .$if(options.status !== undefined, (q) => q.where('status', '=', options.status as CompanyStatus))
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .offset(options.offset)
    .limit(options.limit)
    .execute();
  return { rows: rows.map(({ total: _total, ...row }) => row), total: rows[0]?.total ?? 0 };
}

export function countCompanies(db: Db, status?: CompanyStatus): Promise<number> {
  return db
    .selectFrom('companies')
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .where(MEMBER)
    .$if(status !== undefined, (q) => q.where('status', '=', status as CompanyStatus))
    .executeTakeFirstOrThrow()
    .then((r) => r.total);
}

export function setCompanyStatus(db: Db, id: string, status: CompanyStatus): Promise<CompanyRow | undefined> {
  return db
    .updateTable('companies')
    .set({ status, updated_at: sql<Date>`now()` })
    .where('id', '=', id)
    .where(MEMBER)
    .returning(COLUMNS)
    .executeTakeFirst();
}
