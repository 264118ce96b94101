import type { Kysely } from 'kysely';
import { sql } from 'kysely';

/**
 * Screening jobs (src/modules/screenings): a company's whole customer file, stored sealed in chunks
 * as it is uploaded and screened a chunk per transaction, so a job survives a restart and resumes
 * at its `next_chunk`. A chunk is deleted once screened; what stays is each matched row (sealed to
 * the company) with the figures it matched with, and each rejected row's line and reason.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('screening_jobs')
    .addColumn('id', 'uuid', (col) => col.primaryKey())
    .addColumn('company_id', 'uuid', (col) => col.notNull().references('companies.id'))
    .addColumn('key_id', 'uuid')
    .addColumn('user_id', 'uuid')
    .addColumn('status', 'text', (col) => col.notNull().check(sql`status in ('queued', 'running', 'done', 'failed')`))
    .addColumn('file_complete', 'boolean', (col) => col.notNull().defaultTo(false))
    .addColumn('chunks', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('next_chunk', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('rows_read', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('rows_screened', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('matches', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('errors', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('failure', 'text')
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('started_at', 'timestamptz')
    .addColumn('finished_at', 'timestamptz')
    .addColumn('updated_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('screening_jobs_company_idx').on('screening_jobs').columns(['company_id', 'created_at']).execute();
  // The worker's claim reads only the jobs still to screen.
  await db.schema
    .createIndex('screening_jobs_pending_idx')
    .on('screening_jobs')
    .column('updated_at')
    .where(sql<boolean>`status in ('queued', 'running')`)
    .execute();
  await db.schema
    .createTable('screening_chunks')
    .addColumn('job_id', 'uuid', (col) => col.notNull().references('screening_jobs.id').onDelete('cascade'))
    .addColumn('seq', 'integer', (col) => col.notNull())
    .addColumn('rows', 'integer', (col) => col.notNull())
    .addColumn('body_token', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('screening_chunks_pkey', ['job_id', 'seq'])
    .execute();
  await db.schema
    .createTable('screening_matches')
    .addColumn('job_id', 'uuid', (col) => col.notNull().references('screening_jobs.id').onDelete('cascade'))
    .addColumn('line', 'integer', (col) => col.notNull())
    .addColumn('row_token', 'text', (col) => col.notNull())
    .addColumn('total_reports', 'integer', (col) => col.notNull())
    .addColumn('total_public_reports', 'integer', (col) => col.notNull())
    .addColumn('distinct_companies', 'integer', (col) => col.notNull())
    .addColumn('open_disputes', 'integer', (col) => col.notNull())
    .addColumn('risk_level', 'text', (col) => col.notNull())
    .addColumn('first_reported_at', 'timestamptz')
    .addColumn('last_reported_at', 'timestamptz')
    .addPrimaryKeyConstraint('screening_matches_pkey', ['job_id', 'line'])
    .execute();
  await db.schema
    .createTable('screening_errors')
    .addColumn('job_id', 'uuid', (col) => col.notNull().references('screening_jobs.id').onDelete('cascade'))
    .addColumn('line', 'integer', (col) => col.notNull())
    .addColumn('message', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('screening_errors_pkey', ['job_id', 'line'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['screening_errors', 'screening_matches', 'screening_chunks', 'screening_jobs']) {
    await db.schema.dropTable(table).execute();
  }
}
