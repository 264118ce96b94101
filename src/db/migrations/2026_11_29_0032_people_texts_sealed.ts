import { type Kysely, sql } from 'kysely';

/**
 * The words people write about a report are sealed like its fraud reason (decision 0130): a
 * dispute's reason, the owner's statement and the operators' decision; a report's exit reason and
 * its renewal statement; the operators' reason for rejecting a public report. Each gets a token column and its clear column may be empty; rows written
 * before are sealed at the next start by the process that migrates (a migration has no key).
 *
 * An exit reason the service writes itself stays in clear: it is one of two fixed phrases (a
 * listing that expired, a dispute not answered in time), and "expired" tells how the report left.
 * The partial indexes find the rows still to seal without reading the tables. The phrases are
 * copied here as they were (src/modules/reports/sealed-texts.ts).
 *
 * Not to be undone once the service has run: the down migration would drop the only copy of every
 * text written since, so it refuses while any is there.
 */
const SERVICE_EXIT_REASONS = ['Expired', 'Dispute not answered in time'] as const;

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table disputes
    add column reason_token text, add column owner_statement_token text, add column decision_reason_token text,
    alter column reason drop not null`.execute(db);
  await sql`alter table reports add column exit_list_reason_token text, add column renewal_statement_token text`.execute(db);
  await sql`alter table public_reports add column rejection_reason_token text`.execute(db);
  await sql`create index public_reports_rejection_reason_to_seal_idx on public_reports (id)
    where rejection_reason is not null`.execute(db);
  const service = sql.join(SERVICE_EXIT_REASONS.map((text) => sql.lit(text)));
  await sql`create index reports_exit_reason_to_seal_idx on reports (id)
    where exit_list_reason is not null and exit_list_reason not in (${service})`.execute(db);
  await sql`create index reports_renewal_statement_to_seal_idx on reports (id) where renewal_statement is not null`.execute(db);
  for (const column of ['reason', 'owner_statement', 'decision_reason']) {
    await sql`create index ${sql.id(`disputes_${column}_to_seal_idx`)} on disputes (id) where ${sql.ref(column)} is not null`.execute(
      db,
    );
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  const { rows } = await sql<{ sealed: boolean }>`select
    exists (select 1 from disputes where reason_token is not null or owner_statement_token is not null
            or decision_reason_token is not null)
    or exists (select 1 from reports where exit_list_reason_token is not null or renewal_statement_token is not null)
    or exists (select 1 from public_reports where rejection_reason_token is not null)
    as sealed`.execute(db);
  if (rows[0]?.sealed) throw new Error('Texts are stored sealed since migration 0032; undoing it would lose them');
  for (const column of ['reason', 'owner_statement', 'decision_reason']) {
    await sql`drop index ${sql.id(`disputes_${column}_to_seal_idx`)}`.execute(db);
  }
  await sql`drop index public_reports_rejection_reason_to_seal_idx`.execute(db);
  await sql`alter table public_reports drop column rejection_reason_token`.execute(db);
  await sql`drop index reports_exit_reason_to_seal_idx`.execute(db);
  await sql`drop index reports_renewal_statement_to_seal_idx`.execute(db);
  await sql`alter table reports drop column exit_list_reason_token, drop column renewal_statement_token`.execute(db);
  await sql`alter table disputes drop column reason_token, drop column owner_statement_token, drop column decision_reason_token`.execute(
    db,
  );
}
