import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('reports')
    .addColumn('id', 'uuid', (col) => col.primaryKey())
    .addColumn('company_id', 'uuid', (col) => col.notNull().references('companies.id'))
    .addColumn('user_id', 'text')
    .addColumn('fraud_type', 'text', (col) => col.notNull())
    .addColumn('fraud_reason', 'text', (col) => col.notNull())
    .addColumn('show_uploader_info', 'boolean', (col) => col.notNull().defaultTo(false))
    .addColumn('attachments', sql`text[]`, (col) => col.notNull().defaultTo(sql`'{}'::text[]`))
    .addColumn('status', 'text', (col) => col.notNull().check(sql`status in ('draft', 'published')`))
    .addColumn('published_at', 'timestamptz')
    .addColumn('listing_status', 'text', (col) =>
      col.notNull().defaultTo('listed').check(sql`listing_status in ('listed', 'exited')`),
    )
    .addColumn('exited_list_at', 'timestamptz')
    .addColumn('exit_list_reason', 'text')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute();
  // A company's submissions, newest first (the list endpoint and its filters).
  await db.schema
    .createIndex('reports_company_created_idx')
    .on('reports')
    .columns(['company_id', 'created_at desc', 'id'])
    .execute();

  await db.schema
    .createTable('report_identifiers')
    .addColumn('id', 'uuid', (col) => col.primaryKey())
    .addColumn('report_id', 'uuid', (col) => col.notNull().references('reports.id').onDelete('cascade'))
    // The sealed value is bound to its company: rotation rebuilds the binding from this row alone.
    .addColumn('company_id', 'uuid', (col) => col.notNull())
    .addColumn('position', 'smallint', (col) => col.notNull())
    .addColumn('label', 'text', (col) => col.notNull())
    .addColumn('value_token', 'text', (col) => col.notNull())
    .addColumn('blind_index', 'bytea', (col) => col.notNull())
    .addColumn('nuban_index', 'bytea')
    .addColumn('index_version', 'smallint', (col) => col.notNull())
    .execute();
  // Search: the exact (label, blind index) lookup, and the bare-NUBAN lookup across banks.
  await db.schema
    .createIndex('report_identifiers_lookup_idx')
    .on('report_identifiers')
    .columns(['label', 'blind_index'])
    .execute();
  await db.schema
    .createIndex('report_identifiers_nuban_idx')
    .on('report_identifiers')
    .column('nuban_index')
    .where(sql.ref('nuban_index'), 'is not', null)
    .execute();
  await db.schema
    .createIndex('report_identifiers_report_idx')
    .on('report_identifiers')
    .columns(['report_id', 'position'])
    .execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('id', 'uuid', (col) => col.notNull().unique().defaultTo(sql`gen_random_uuid()`))
    .addColumn('company_id', 'uuid', (col) => col.notNull().references('companies.id'))
    .addColumn('key', 'text', (col) => col.notNull())
    .addColumn('request_hash', 'bytea', (col) => col.notNull())
    .addColumn('state', 'text', (col) => col.notNull().check(sql`state in ('in_flight', 'done')`))
    .addColumn('response_status', 'smallint')
    // Sealed (src/crypto/keyring.ts): the stored response repeats the clear identifiers sent.
    .addColumn('response_body', 'text')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['company_id', 'key'])
    .execute();
  await db.schema.createIndex('idempotency_keys_created_idx').on('idempotency_keys').column('created_at').execute();

  await db.schema
    .createTable('audit_events')
    .addColumn('id', 'bigserial', (col) => col.primaryKey())
    .addColumn('company_id', 'uuid')
    .addColumn('operator_id', 'uuid')
    .addColumn('key_id', 'uuid', (col) => col.notNull())
    .addColumn('action', 'text', (col) => col.notNull())
    .addColumn('label', 'text')
    .addColumn('blind_index', 'bytea')
    .addColumn('report_id', 'uuid')
    .addColumn('result_count', 'integer')
    .addColumn('request_id', 'text', (col) => col.notNull())
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('audit_events_company_idx').on('audit_events').columns(['company_id', 'id desc']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('audit_events').execute();
  await db.schema.dropTable('idempotency_keys').execute();
  await db.schema.dropTable('report_identifiers').execute();
  await db.schema.dropTable('reports').execute();
}
