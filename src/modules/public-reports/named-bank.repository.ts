import type { Kysely, Transaction } from 'kysely';
import { sql } from 'kysely';
import type { Database, PublicReportStatus } from '../../db/schema.js';

type Db = Kysely<Database> | Transaction<Database>;

export interface NamedReportRow {
  id: string;
  fraud_type: string;
  financial_institution: string;
  event_date: Date;
  status: PublicReportStatus;
  /** When the member was told (its `public_report.published` event). */
  told_at: Date;
}

/**
 * The events telling this company of a public report naming its bank, while it is still linked to
 * the bank the event named (decision 0138): a member whose link the operators moved or ended no
 * longer reads what it was told as that bank.
 */
const told = (companyId: string) => sql`
  select e.id as event_id, e.report_id, e.created_at from webhook_events e
  join banks b on b.slug = e.payload->'publicReport'->'bank'->>'slug'
  join company_banks cb on cb.bank_id = b.id and cb.company_id = e.company_id
  where e.company_id = ${companyId} and e.type = 'public_report.published'`;

/**
 * The public reports a member was told name its bank, newest first: the `public_report.published`
 * events the outbox wrote for it, whether or not it has a webhook endpoint. Read through the partial
 * index of migration 0037.
 */
export async function listNamedReports(
  db: Db,
  companyId: string,
  page: { limit: number; offset: number },
): Promise<NamedReportRow[]> {
  const result = await sql<NamedReportRow>`
    select p.id, p.fraud_type, p.financial_institution, p.event_date, p.status, e.created_at as told_at
    from (${told(companyId)}) e join public_reports p on p.id = e.report_id
    order by e.created_at desc, e.event_id desc
    limit ${page.limit} offset ${page.offset}`.execute(db);
  return result.rows;
}

export async function countNamedReports(db: Db, companyId: string): Promise<number> {
  const result = await sql<{ n: string }>`select count(*) as n from (${told(companyId)}) e`.execute(db);
  return Number(result.rows[0]?.n ?? 0);
}

/** Whether the member was told this public report names its bank, and is still linked to that bank. */
export async function wasTold(db: Db, companyId: string, publicReportId: string): Promise<boolean> {
  const result = await sql<{ told: boolean }>`select exists (
    select 1 from (${told(companyId)}) e where e.report_id = ${publicReportId}) as told`.execute(db);
  return result.rows[0]?.told === true;
}
