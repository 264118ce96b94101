import { type Kysely, sql } from 'kysely';

/**
 * Account recovery takes two people when the link is handed over (decision 0136). The account keeps
 * who last took its second factor away and when, and which administrator was handed the link that
 * set its current password (null once the person sets one themselves); a link keeps the
 * administrator it was answered to (null when only the person's mailbox received it).
 *
 * What came before is filled in as far as it is known: a reset of the last 7 days whose person has no
 * factor again is taken from the audit trail (through its time index; the trail has a row per
 * search). Unused password links are ended: whether one was handed over was not recorded, and its
 * person asks again.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table users add column second_factor_reset_by uuid, add column second_factor_reset_at timestamptz,
    add column password_link_handed_to uuid`.execute(db);
  await sql`alter table user_invitations add column handed_to uuid`.execute(db);
  await sql`update users u set second_factor_reset_by = a.user_id, second_factor_reset_at = a.created_at
    from (
      select distinct on (subject_id) subject_id, user_id, created_at from audit_events
      where created_at > now() - interval '7 days' and action = 'user_totp_reset' and subject_id is not null
      order by subject_id, created_at desc
    ) a
    where u.id = a.subject_id and u.totp_confirmed_at is null`.execute(db);
  await sql`update user_invitations set expires_at = to_timestamp(0)
    where purpose = 'password_reset' and accepted_at is null and expires_at > now()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table user_invitations drop column handed_to`.execute(db);
  await sql`alter table users drop column second_factor_reset_by, drop column second_factor_reset_at,
    drop column password_link_handed_to`.execute(db);
}
