import { type Kysely, sql } from 'kysely';

/**
 * The built-in "Public reports" company: the owner of every public report and public upload. The
 * id is written out here (not imported) so this migration never changes; the code's constant
 * (`PUBLIC_REPORTS_COMPANY_ID`) is tested against it.
 */
const PUBLIC_REPORTS_COMPANY_ID = '00000000-0000-4000-8000-000000000001';

export async function up(db: Kysely<any>): Promise<void> {
  await db
    .insertInto('companies')
    .values({ id: PUBLIC_REPORTS_COMPANY_ID, business_name: 'Public reports', status: 'active' })
    .execute();
  // Nobody ever logs in as the public: no key can be stored for it, whatever a service forgets.
  await sql`alter table api_keys add constraint api_keys_not_public_reports
    check (company_id is null or company_id <> ${sql.lit(PUBLIC_REPORTS_COMPANY_ID)}::uuid)`.execute(db);

  // Evidence files: metadata here, the bytes in a blob store (upload_blobs on the database store).
  await db.schema
    .createTable('uploads')
    .addColumn('id', 'uuid', (col) => col.primaryKey())
    .addColumn('company_id', 'uuid', (col) => col.notNull().references('companies.id'))
    .addColumn('content_type', 'text', (col) =>
      col.notNull().check(sql`content_type in ('application/pdf', 'image/png', 'image/jpeg', 'image/webp')`),
    )
    .addColumn('size', 'integer', (col) => col.notNull().check(sql`size > 0`))
    .addColumn('sha256', 'bytea', (col) => col.notNull().check(sql`octet_length(sha256) = 32`))
    // The generated name the bytes are stored under in the blob store.
    .addColumn('storage_key', 'text', (col) => col.notNull().unique())
    // The report or public report it is attached to (no foreign key: it may be either table).
    .addColumn('record_id', 'uuid')
    // Since when it is attached to nothing; the sweeper removes it 24 hours later.
    .addColumn('orphaned_at', 'timestamptz', (col) => col.defaultTo(sql`now()`))
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addCheckConstraint('uploads_attached_or_orphaned', sql`(record_id is null) = (orphaned_at is not null)`)
    .execute();
  await db.schema
    .createIndex('uploads_orphaned_idx')
    .on('uploads')
    .column('orphaned_at')
    .where(sql.ref('orphaned_at'), 'is not', null)
    .execute();
  await db.schema
    .createIndex('uploads_record_idx')
    .on('uploads')
    .column('record_id')
    .where(sql.ref('record_id'), 'is not', null)
    .execute();

  // A file's bytes in slices (1 MiB each), so no statement carries a whole file: the driver copies
  // each parameter into its wire message, and a slice bounds that copy.
  await db.schema
    .createTable('upload_blobs')
    // The bytes go with their upload row, in the same statement: nothing can be left behind.
    .addColumn('key', 'text', (col) => col.notNull().references('uploads.storage_key').onDelete('cascade'))
    .addColumn('seq', 'integer', (col) => col.notNull())
    .addColumn('data', 'bytea', (col) => col.notNull())
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('upload_blobs_pk', ['key', 'seq'])
    .execute();
  // The bytes are already compressed (PDF streams, PNG, JPEG, WebP): TOAST compression would only cost CPU.
  await sql`alter table upload_blobs alter column data set storage external`.execute(db);

  await db.schema
    .createTable('public_reports')
    .addColumn('id', 'uuid', (col) => col.primaryKey())
    .addColumn('company_id', 'uuid', (col) => col.notNull().references('companies.id'))
    .addColumn('reporting_entity', 'text', (col) =>
      col.notNull().check(sql`reporting_entity in ('self', 'witness', 'guest', 'representative')`),
    )
    .addColumn('fraud_type', 'text', (col) => col.notNull())
    .addColumn('fraud_reason', 'text', (col) => col.notNull())
    .addColumn('financial_institution', 'text', (col) => col.notNull())
    .addColumn('event_date', 'timestamptz', (col) => col.notNull())
    .addColumn('attachments', sql`text[]`, (col) => col.notNull().defaultTo(sql`'{}'::text[]`))
    // Sealed JSON of the clear contact details, and the masked form search shows without decrypting.
    .addColumn('victim_token', 'text')
    .addColumn('victim_masked', 'jsonb')
    .addColumn('guest_info_token', 'text')
    .addColumn('guest_info_masked', 'jsonb')
    .addColumn('status', 'text', (col) =>
      col.notNull().defaultTo('draft').check(sql`status in ('draft', 'published', 'rejected')`),
    )
    .addColumn('notification_sent', 'boolean', (col) => col.notNull().defaultTo(false))
    .addColumn('rejection_reason', 'text')
    .addColumn('moderated_by', 'uuid')
    .addColumn('moderated_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute();
  // The moderation queue: by status, newest first.
  await db.schema
    .createIndex('public_reports_status_created_idx')
    .on('public_reports')
    .columns(['status', 'created_at desc', 'id'])
    .execute();

  await db.schema
    .createTable('public_report_identifiers')
    .addColumn('id', 'uuid', (col) => col.primaryKey())
    .addColumn('public_report_id', 'uuid', (col) => col.notNull().references('public_reports.id').onDelete('cascade'))
    .addColumn('company_id', 'uuid', (col) => col.notNull())
    .addColumn('position', 'smallint', (col) => col.notNull())
    .addColumn('label', 'text', (col) => col.notNull())
    .addColumn('value_token', 'text', (col) => col.notNull())
    .addColumn('blind_index', 'bytea', (col) => col.notNull())
    .addColumn('nuban_index', 'bytea')
    .addColumn('index_version', 'smallint', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('public_report_identifiers_lookup_idx')
    .on('public_report_identifiers')
    .columns(['label', 'blind_index'])
    .execute();
  await db.schema
    .createIndex('public_report_identifiers_nuban_idx')
    .on('public_report_identifiers')
    .column('nuban_index')
    .where(sql.ref('nuban_index'), 'is not', null)
    .execute();
  await db.schema
    .createIndex('public_report_identifiers_report_idx')
    .on('public_report_identifiers')
    .columns(['public_report_id', 'position'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('public_report_identifiers').execute();
  await db.schema.dropTable('public_reports').execute();
  await db.schema.dropTable('upload_blobs').execute();
  await db.schema.dropTable('uploads').execute();
  await sql`alter table api_keys drop constraint api_keys_not_public_reports`.execute(db);
  await db.deleteFrom('companies').where('id', '=', PUBLIC_REPORTS_COMPANY_ID).execute();
}
