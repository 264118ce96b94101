import { type Kysely, sql } from 'kysely';

/**
 * Envelope encryption (src/crypto/key-store.ts): every data key, blind-index key and the
 * URL-signing key is a random key stored here wrapped (AES-256-GCM) under a key-encryption key
 * derived from the root key, so changing the root re-wraps these rows instead of every value.
 * `root_id` is a fingerprint of the root that wrapped the row (never the key). Each identifier row
 * records which version of its label's index key made its blind index, so `crypto reindex` can move
 * rows to a new version while searches look up both.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('crypto_keys')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('kind', 'text', (col) =>
      col.notNull().check(sql`kind in ('check', 'data', 'index', 'url', 'pseudonym', 'evidence', 'root', 'retired-root')`),
    )
    .addColumn('label', 'text')
    .addColumn('version', 'integer')
    .addColumn('wrapped', 'bytea', (col) => col.notNull())
    .addColumn('root_id', 'bytea', (col) => col.notNull())
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute();
  for (const table of ['report_identifiers', 'public_report_identifiers']) {
    await db.schema
      .alterTable(table)
      .addColumn('index_key_version', 'integer', (col) => col.notNull().defaultTo(1))
      .execute();
  }
  // Evidence hashes become HMACs under a stored key (they confirmed a guessed file); rows from
  // before are converted by the service at start (src/modules/uploads), which holds the key.
  await db.schema
    .alterTable('uploads')
    .addColumn('sha256_keyed', 'boolean', (col) => col.notNull().defaultTo(false))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('uploads').dropColumn('sha256_keyed').execute();
  for (const table of ['report_identifiers', 'public_report_identifiers']) {
    await db.schema.alterTable(table).dropColumn('index_key_version').execute();
  }
  await db.schema.dropTable('crypto_keys').execute();
}
