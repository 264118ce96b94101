import { type Kysely, sql } from 'kysely';

/**
 * The data-encryption key ids. No key material: keys are derived from the root key by id; the
 * key-check value only lets start-up recognise a wrong root key.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('encryption_keys')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('is_primary', 'boolean', (col) => col.notNull().defaultTo(false))
    .addColumn('key_check', 'bytea', (col) => col.notNull())
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('retired_at', 'timestamptz')
    .addColumn('reencrypted_at', 'timestamptz')
    .execute();
  // At most one primary key: two rotations racing cannot both win.
  await db.schema
    .createIndex('encryption_keys_one_primary')
    .on('encryption_keys')
    .column('is_primary')
    .unique()
    .where(sql.ref('is_primary'), '=', true)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('encryption_keys').execute();
}
