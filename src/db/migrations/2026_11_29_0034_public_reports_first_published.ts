import { type Kysely, sql } from 'kysely';

/**
 * When a public report was first published, kept when the operators take it down (decision 0129):
 * its sender's status page tells "withdrawn" (shared, then taken down) from "not published". Older
 * reports take it from the operators' trail (`public_publish`), or, published without one, from
 * their moderation time.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table public_reports add column first_published_at timestamptz`.execute(db);
  await sql`update public_reports p set first_published_at = a.at
    from (select report_id, min(created_at) as at from audit_events
          where company_id is null and action = 'public_publish' group by report_id) a
    where a.report_id = p.id`.execute(db);
  await sql`update public_reports set first_published_at = coalesce(moderated_at, created_at)
    where status = 'published' and first_published_at is null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table public_reports drop column first_published_at`.execute(db);
}
