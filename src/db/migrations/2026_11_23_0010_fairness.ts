import { type Kysely, sql } from 'kysely';

/**
 * Issue 15, "fair to the person listed": disputes, the listing period and its renewal, the
 * operators' safelist, and the scheduler's one row per job (its lock and last run).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('disputes')
    .addColumn('id', 'uuid', (col) => col.primaryKey())
    .addColumn('report_id', 'uuid', (col) => col.notNull().references('reports.id').onDelete('cascade'))
    // The report's owner, copied so "received" lists need no join and survive nothing changing it.
    .addColumn('report_company_id', 'uuid', (col) => col.notNull())
    // Who disputes: a member company, or an operator (then the company is null).
    .addColumn('disputing_company_id', 'uuid', (col) => col.references('companies.id'))
    .addColumn('disputing_operator_id', 'uuid')
    .addColumn('reason', 'text', (col) => col.notNull())
    .addColumn('identifier_ids', sql`uuid[]`, (col) => col.notNull().defaultTo(sql`'{}'::uuid[]`))
    .addColumn('attachments', sql`text[]`, (col) => col.notNull().defaultTo(sql`'{}'::text[]`))
    .addColumn('status', 'text', (col) =>
      col.notNull().check(sql`status in ('open', 'upheld', 'escalated', 'exited', 'timed_out', 'kept', 'removed')`),
    )
    .addColumn('opened_at', 'timestamptz', (col) => col.notNull())
    .addColumn('respond_by', 'timestamptz', (col) => col.notNull())
    .addColumn('owner_statement', 'text')
    .addColumn('answered_at', 'timestamptz')
    .addColumn('escalated_at', 'timestamptz')
    .addColumn('decided_at', 'timestamptz')
    .addColumn('decision_reason', 'text')
    .addColumn('updated_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addCheckConstraint('disputes_one_disputer', sql`(disputing_company_id is null) <> (disputing_operator_id is null)`)
    .execute();
  // One unresolved dispute per report and disputing party (a company, or the operators as one).
  await sql`create unique index disputes_one_open_idx on disputes
    (report_id, coalesce(disputing_company_id, '00000000-0000-0000-0000-000000000000'::uuid))
    where status in ('open', 'upheld', 'escalated')`.execute(db);
  await db.schema.createIndex('disputes_report_idx').on('disputes').columns(['report_id', 'status']).execute();
  await db.schema.createIndex('disputes_raised_idx').on('disputes').columns(['disputing_company_id', 'opened_at']).execute();
  await db.schema.createIndex('disputes_received_idx').on('disputes').columns(['report_company_id', 'opened_at']).execute();
  // The timeout job: open disputes by deadline.
  await sql`create index disputes_open_deadline_idx on disputes (respond_by) where status = 'open'`.execute(db);

  // The listing period runs from publication, or from the latest renewal.
  await db.schema.alterTable('reports').addColumn('renewed_at', 'timestamptz').execute();
  await db.schema.alterTable('reports').addColumn('renewal_statement', 'text').execute();
  await sql`create index reports_listing_period_idx on reports ((coalesce(renewed_at, published_at)))
    where status = 'published' and listing_status = 'listed'`.execute(db);
  // The public-report clean-up: drafts and rejected reports by age.
  await db.schema.createIndex('public_reports_cleanup_idx').on('public_reports').columns(['status', 'created_at']).execute();
  // Audit retention deletes the oldest rows.
  await db.schema.createIndex('audit_events_created_idx').on('audit_events').column('created_at').execute();

  // Identifiers that must never be listed: blind indexes only, never the value.
  await db.schema
    .createTable('safelist')
    .addColumn('id', 'uuid', (col) => col.primaryKey())
    .addColumn('label', 'text', (col) => col.notNull())
    .addColumn('blind_index', 'bytea', (col) => col.notNull())
    .addColumn('index_version', 'smallint', (col) => col.notNull())
    .addColumn('reason', 'text', (col) => col.notNull())
    .addColumn('operator_id', 'uuid')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('safelist_label_index_uq', ['label', 'blind_index'])
    .execute();

  // The scheduler: one row per job is its lock (claimed by a conditional UPDATE) and its record.
  await db.schema
    .createTable('job_runs')
    .addColumn('name', 'text', (col) => col.primaryKey())
    .addColumn('locked_until', 'timestamptz')
    .addColumn('locked_by', 'text')
    .addColumn('last_started_at', 'timestamptz')
    .addColumn('last_finished_at', 'timestamptz')
    .addColumn('last_status', 'text')
    .addColumn('last_error', 'text')
    .addColumn('last_items', 'integer')
    .addColumn('runs', 'bigint', (col) => col.notNull().defaultTo(0))
    .addColumn('failures', 'bigint', (col) => col.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('job_runs').execute();
  await db.schema.dropTable('safelist').execute();
  await db.schema.dropIndex('audit_events_created_idx').execute();
  await db.schema.dropIndex('public_reports_cleanup_idx').execute();
  await db.schema.dropIndex('reports_listing_period_idx').execute();
  await db.schema.alterTable('reports').dropColumn('renewal_statement').execute();
  await db.schema.alterTable('reports').dropColumn('renewed_at').execute();
  await db.schema.dropTable('disputes').execute();
}
