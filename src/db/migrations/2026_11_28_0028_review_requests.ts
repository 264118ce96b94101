import { type Kysely, sql } from 'kysely';

/**
 * A person who believes they are wrongly listed asks the operators to review it (decision 0122).
 * Everything they send — name, contact, the identifiers they fear are listed, their statement — is
 * one sealed JSON token (`request_token`), opened only in the operators' audited read; the row keeps
 * the identifiers' kinds (`labels`) to list requests without opening them. No blind index: the
 * operators search the values when they open one, so a request never answers "listed or not".
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('review_requests')
    .addColumn('id', 'uuid', (col) => col.primaryKey())
    .addColumn('status', 'text', (col) => col.notNull().defaultTo('open'))
    .addColumn('request_token', 'text', (col) => col.notNull())
    .addColumn('labels', sql`text[]`, (col) => col.notNull())
    .addColumn('outcome', 'text')
    // What the operators did and told the person: it names them too, so it is sealed like the rest.
    .addColumn('outcome_note_token', 'text')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('closed_at', 'timestamptz')
    .addCheckConstraint('review_requests_status', sql`status in ('open', 'closed')`)
    .addCheckConstraint(
      'review_requests_outcome',
      sql`(status = 'open' and outcome is null and closed_at is null)
        or (status = 'closed' and outcome in ('disputed', 'not_listed', 'declined') and closed_at is not null)`,
    )
    .execute();
  await db.schema
    .createIndex('review_requests_status_idx')
    .on('review_requests')
    .columns(['status', 'created_at desc', 'id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('review_requests').execute();
}
