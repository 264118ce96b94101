import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('companies')
    .addColumn('id', 'uuid', (col) => col.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('business_name', 'text', (col) => col.notNull())
    .addColumn('status', 'text', (col) => col.notNull().defaultTo('active'))
    .addColumn('rate_limit_per_minute', 'integer')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addCheckConstraint('companies_status', sql`status in ('active', 'suspended')`)
    .addCheckConstraint('companies_rate_limit_positive', sql`rate_limit_per_minute is null or rate_limit_per_minute > 0`)
    .addCheckConstraint('companies_business_name_present', sql`length(btrim(business_name)) > 0`)
    .execute();
  // The admin list pages newest first.
  await db.schema.createIndex('companies_created_at').on('companies').columns(['created_at', 'id']).execute();

  await db.schema
    .createTable('operators')
    .addColumn('id', 'uuid', (col) => col.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addCheckConstraint('operators_name_present', sql`length(btrim(name)) > 0`)
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'uuid', (col) => col.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('role', 'text', (col) => col.notNull())
    .addColumn('company_id', 'uuid', (col) => col.references('companies.id').onDelete('cascade'))
    .addColumn('operator_id', 'uuid', (col) => col.references('operators.id').onDelete('cascade'))
    // The first characters of the key, to recognise it in a list; never enough to use it.
    .addColumn('prefix', 'text', (col) => col.notNull())
    // SHA-256 of the whole key: keys are 178 random bits, so a plain hash cannot be brute-forced.
    .addColumn('hash', 'bytea', (col) => col.notNull().unique())
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz')
    .addColumn('revoked_at', 'timestamptz')
    .addColumn('last_used_at', 'timestamptz')
    // Set when the key was rotated: the key that replaces it (the old one lives until expires_at).
    .addColumn('replaced_by', 'uuid', (col) => col.references('api_keys.id').onDelete('set null'))
    .addCheckConstraint('api_keys_role', sql`role in ('company', 'operator')`)
    .addCheckConstraint(
      'api_keys_owner',
      sql`(role = 'company' and company_id is not null and operator_id is null)
        or (role = 'operator' and operator_id is not null and company_id is null)`,
    )
    .addCheckConstraint('api_keys_hash_length', sql`octet_length(hash) = 32`)
    .execute();
  await db.schema.createIndex('api_keys_company').on('api_keys').columns(['company_id', 'created_at']).execute();
  await db.schema.createIndex('api_keys_operator').on('api_keys').columns(['operator_id', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('api_keys').execute();
  await db.schema.dropTable('operators').execute();
  await db.schema.dropTable('companies').execute();
}
