import { type Kysely, sql } from 'kysely';

/**
 * Issue 14, "Redflag speaks first": watchlists (blind index + sealed value, like report
 * identifiers), the transactional outbox of events, webhook endpoints, their deliveries and the
 * delivery log, and the link from a member company to the bank-list entry it is.
 */
export async function up(db: Kysely<any>): Promise<void> {
  // A member is linked by an operator to the bank-list entry it is; one member per bank, one bank per member.
  await db.schema
    .createTable('company_banks')
    .addColumn('company_id', 'uuid', (col) => col.primaryKey().references('companies.id'))
    .addColumn('bank_id', 'uuid', (col) => col.notNull().unique().references('banks.id'))
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('watchlist_entries')
    .addColumn('id', 'uuid', (col) => col.primaryKey())
    .addColumn('company_id', 'uuid', (col) => col.notNull().references('companies.id'))
    .addColumn('label', 'text', (col) => col.notNull())
    .addColumn('value_token', 'text', (col) => col.notNull())
    .addColumn('blind_index', 'bytea', (col) => col.notNull())
    .addColumn('nuban_index', 'bytea')
    .addColumn('index_version', 'smallint', (col) => col.notNull())
    .addColumn('index_key_version', 'integer', (col) => col.notNull().defaultTo(1))
    // The company's own reference (its customer id): travels with every event about the entry.
    .addColumn('ref', 'text')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('watchlist_entries_uq', ['company_id', 'label', 'blind_index'])
    .execute();
  // Matching a report's identifiers against every company's watchlist.
  await db.schema.createIndex('watchlist_entries_index_idx').on('watchlist_entries').columns(['blind_index']).execute();
  await db.schema
    .createIndex('watchlist_entries_company_idx')
    .on('watchlist_entries')
    .columns(['company_id', 'created_at'])
    .execute();

  // CSV imports of a watchlist: progress, and per-row errors (a row number and a message, never the value).
  await db.schema
    .createTable('watchlist_imports')
    .addColumn('id', 'uuid', (col) => col.primaryKey())
    .addColumn('company_id', 'uuid', (col) => col.notNull().references('companies.id'))
    .addColumn('status', 'text', (col) => col.notNull().check(sql`status in ('running', 'interrupted', 'done')`))
    // Data rows read so far (the header excluded): a resumed upload skips this many.
    .addColumn('processed_rows', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('imported_rows', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('failed_rows', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createTable('watchlist_import_errors')
    .addColumn('import_id', 'uuid', (col) => col.notNull().references('watchlist_imports.id').onDelete('cascade'))
    .addColumn('row', 'integer', (col) => col.notNull())
    .addColumn('message', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('watchlist_import_errors_pk', ['import_id', 'row'])
    .execute();

  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', 'uuid', (col) => col.primaryKey())
    .addColumn('company_id', 'uuid', (col) => col.notNull().references('companies.id'))
    .addColumn('url', 'text', (col) => col.notNull())
    .addColumn('events', sql`text[]`, (col) => col.notNull())
    // The signing secret, sealed; the previous one signs too until `previous_secret_until`.
    .addColumn('secret_token', 'text', (col) => col.notNull())
    .addColumn('previous_secret_token', 'text')
    .addColumn('previous_secret_until', 'timestamptz')
    .addColumn('status', 'text', (col) => col.notNull().defaultTo('active').check(sql`status in ('active', 'disabled')`))
    // Since when every attempt has failed (null after a success); 3 days of it disables the endpoint.
    .addColumn('failing_since', 'timestamptz')
    .addColumn('disabled_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('webhook_endpoints_company_idx').on('webhook_endpoints').columns(['company_id']).execute();

  // The outbox: written in the transaction of the change that causes the event.
  await db.schema
    .createTable('webhook_events')
    .addColumn('id', 'uuid', (col) => col.primaryKey())
    .addColumn('company_id', 'uuid', (col) => col.notNull())
    .addColumn('type', 'text', (col) => col.notNull())
    // The report or public report the event is about (finds the earlier matches of an exit).
    .addColumn('report_id', 'uuid', (col) => col.notNull())
    .addColumn('watchlist_entry_id', 'uuid')
    .addColumn('payload', 'jsonb', (col) => col.notNull())
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('webhook_events_report_idx').on('webhook_events').columns(['report_id', 'type']).execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'uuid', (col) => col.primaryKey())
    .addColumn('event_id', 'uuid', (col) => col.notNull().references('webhook_events.id').onDelete('cascade'))
    .addColumn('endpoint_id', 'uuid', (col) => col.notNull().references('webhook_endpoints.id').onDelete('cascade'))
    .addColumn('status', 'text', (col) =>
      col.notNull().defaultTo('pending').check(sql`status in ('pending', 'delivered', 'failed')`),
    )
    .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    // A worker's claim: another instance skips the row until it has passed (a dead worker's claim lapses).
    .addColumn('locked_until', 'timestamptz')
    .addColumn('delivered_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create index webhook_deliveries_due_idx on webhook_deliveries (next_attempt_at) where status = 'pending'`.execute(db);
  await db.schema
    .createIndex('webhook_deliveries_endpoint_idx')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('webhook_attempts')
    .addColumn('id', 'uuid', (col) => col.primaryKey())
    .addColumn('delivery_id', 'uuid', (col) => col.notNull().references('webhook_deliveries.id').onDelete('cascade'))
    .addColumn('attempt', 'integer', (col) => col.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('latency_ms', 'integer', (col) => col.notNull())
    .addColumn('error', 'text')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex('webhook_attempts_delivery_idx')
    .on('webhook_attempts')
    .columns(['delivery_id', 'attempt'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('webhook_attempts').execute();
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('webhook_events').execute();
  await db.schema.dropTable('webhook_endpoints').execute();
  await db.schema.dropTable('watchlist_import_errors').execute();
  await db.schema.dropTable('watchlist_imports').execute();
  await db.schema.dropTable('watchlist_entries').execute();
  await db.schema.dropTable('company_banks').execute();
}
