import { type Kysely, sql } from 'kysely';
import { PUBLIC_REPORTS_COMPANY_ID } from '../../modules/companies/public-reports-company.js';

/**
 * The built-in Public reports company holds the public's reports and nothing else: no user and no
 * bank link, as migration 0005 already says for API keys. Until 2026-11-28 an operator could invite
 * a user into it (who then filed reports under its name) or link it to a bank; the services refuse
 * both now, and these constraints make the database refuse them too. `not valid`: a row made through
 * that gap before this migration does not stop the upgrade (an operator removes it by hand); every
 * new or changed row is checked.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const id = sql.lit(PUBLIC_REPORTS_COMPANY_ID);
  await sql`alter table users add constraint users_not_public_reports
    check (company_id is distinct from ${id}::uuid) not valid`.execute(db);
  await sql`alter table company_banks add constraint company_banks_not_public_reports
    check (company_id <> ${id}::uuid) not valid`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table company_banks drop constraint company_banks_not_public_reports`.execute(db);
  await sql`alter table users drop constraint users_not_public_reports`.execute(db);
}
