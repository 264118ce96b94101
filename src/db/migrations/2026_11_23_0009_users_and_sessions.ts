import { type Kysely, sql } from 'kysely';

/**
 * People: users of a member company or of the operators, their invitations, sessions and TOTP
 * recovery codes. Every secret here is stored as a hash (invite tokens, session ids, recovery
 * codes: SHA-256 of 256/80 random bits; passwords: argon2id) or sealed (the TOTP secret).
 * Audit rows may now come from a session: `key_id` becomes optional and `user_id` names the person.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'uuid', (col) => col.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('company_id', 'uuid', (col) => col.references('companies.id').onDelete('cascade'))
    .addColumn('operator_id', 'uuid', (col) => col.references('operators.id').onDelete('cascade'))
    .addColumn('email', 'text', (col) => col.notNull())
    .addColumn('name', 'text')
    .addColumn('role', 'text', (col) => col.notNull())
    .addColumn('status', 'text', (col) => col.notNull().defaultTo('invited'))
    .addColumn('password_hash', 'text')
    .addColumn('totp_secret_token', 'text')
    .addColumn('totp_confirmed_at', 'timestamptz')
    // The last TOTP time step accepted: a code (or an older one) is never accepted twice.
    .addColumn('totp_last_step', 'bigint')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addCheckConstraint('users_status', sql`status in ('invited', 'active', 'suspended', 'removed')`)
    .addCheckConstraint(
      'users_owner_role',
      sql`(company_id is not null and operator_id is null and role in ('admin', 'analyst', 'viewer'))
        or (operator_id is not null and company_id is null and role in ('moderator', 'admin'))`,
    )
    .addCheckConstraint('users_email_lower', sql`email = lower(email) and length(email) between 3 and 254`)
    .execute();
  // One live account per address (sign-in is by e-mail alone); a removed user's address can be invited again.
  await sql`create unique index users_email_live on users (email) where status <> 'removed'`.execute(db);
  await db.schema.createIndex('users_company').on('users').columns(['company_id', 'created_at']).execute();
  await db.schema.createIndex('users_operator').on('users').columns(['operator_id', 'created_at']).execute();

  await db.schema
    .createTable('user_invitations')
    .addColumn('id', 'uuid', (col) => col.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('user_id', 'uuid', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('token_hash', 'bytea', (col) => col.notNull().unique())
    .addColumn('expires_at', 'timestamptz', (col) => col.notNull())
    .addColumn('accepted_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addCheckConstraint('user_invitations_hash_length', sql`octet_length(token_hash) = 32`)
    .execute();
  await db.schema.createIndex('user_invitations_user').on('user_invitations').column('user_id').execute();

  await db.schema
    .createTable('user_sessions')
    .addColumn('id', 'uuid', (col) => col.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('token_hash', 'bytea', (col) => col.notNull().unique())
    .addColumn('user_id', 'uuid', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'timestamptz', (col) => col.notNull())
    .addColumn('last_seen_at', 'timestamptz', (col) => col.notNull())
    .addColumn('expires_at', 'timestamptz', (col) => col.notNull())
    .addCheckConstraint('user_sessions_hash_length', sql`octet_length(token_hash) = 32`)
    .execute();
  await db.schema.createIndex('user_sessions_user').on('user_sessions').column('user_id').execute();

  await db.schema
    .createTable('user_recovery_codes')
    .addColumn('id', 'uuid', (col) => col.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('user_id', 'uuid', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('code_hash', 'bytea', (col) => col.notNull())
    .addColumn('used_at', 'timestamptz')
    .addCheckConstraint('user_recovery_codes_hash_length', sql`octet_length(code_hash) = 32`)
    .execute();
  await db.schema.createIndex('user_recovery_codes_user').on('user_recovery_codes').column('user_id').execute();

  await db.schema
    .alterTable('audit_events')
    .alterColumn('key_id', (col) => col.dropNotNull())
    .execute();
  await db.schema.alterTable('audit_events').addColumn('user_id', 'uuid').execute();
  await db.schema
    .alterTable('audit_events')
    .addCheckConstraint('audit_events_actor', sql`key_id is not null or user_id is not null`)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('audit_events').dropConstraint('audit_events_actor').execute();
  await db.schema.alterTable('audit_events').dropColumn('user_id').execute();
  await db.schema.dropTable('user_recovery_codes').execute();
  await db.schema.dropTable('user_sessions').execute();
  await db.schema.dropTable('user_invitations').execute();
  await db.schema.dropTable('users').execute();
}
