import { type Kysely, sql } from 'kysely';

/**
 * `crypto rotate` re-seals every sealed column from the row itself, but a screening chunk's and a
 * matched row's tokens are sealed to their job's company, which only the job's row holds. These
 * views give rotation each row with its company (src/crypto/sealed-columns.ts); nothing else reads them.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create view screening_chunks_sealed as
    select c.job_id, c.seq, c.body_token, j.company_id
    from screening_chunks c join screening_jobs j on j.id = c.job_id`.execute(db);
  await sql`create view screening_matches_sealed as
    select m.job_id, m.line, m.row_token, j.company_id
    from screening_matches m join screening_jobs j on j.id = m.job_id`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop view screening_matches_sealed`.execute(db);
  await sql`drop view screening_chunks_sealed`.execute(db);
}
