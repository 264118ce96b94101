import { type Kysely, sql } from 'kysely';

/**
 * Account recovery takes two people when the link is handed over (decision 0136). The account keeps
 * who last took its second factor away, and which administrator was handed the link that
 * set its current password (null once the person sets one themselves); a link keeps the
 * administrator it was answered to (null when only the person's mailbox received it).
 *
 * What came before is filled in as far as the audit trail of the last 7 days tells it (read through
 * its time index: the trail has a row per search): a reset whose person has no factor again, and a
 * password last set with an administrator's link. The trail is read first, into a temporary table,
 * so the users table is locked only for the short statements after. Unused password links are
 * ended: whether one was handed over was not recorded, and its person asks again.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create temp table recovery_steps on commit drop as
    select distinct on (subject_id, action) subject_id, action, user_id, created_at from audit_events
    where created_at > now() - interval '7 days' and subject_id is not null
      and action in ('user_totp_reset', 'user_password_link', 'user_password_reset')
    order by subject_id, action, created_at desc`.execute(db);
  await sql`alter table users add column second_factor_reset_by uuid, add column password_link_handed_to uuid`.execute(db);
  await sql`alter table user_invitations add column handed_to uuid`.execute(db);
  await sql`update users u set second_factor_reset_by = s.user_id
    from recovery_steps s
    where s.action = 'user_totp_reset' and u.id = s.subject_id and u.totp_confirmed_at is null`.execute(db);
  // Counted as handed over even when it was e-mailed (which was not recorded): stricter, never looser.
  await sql`update users u set password_link_handed_to = l.user_id
    from recovery_steps l join recovery_steps r on r.subject_id = l.subject_id and r.action = 'user_password_reset'
    where l.action = 'user_password_link' and r.created_at > l.created_at and u.id = l.subject_id`.execute(db);
  await sql`update user_invitations set expires_at = to_timestamp(0)
    where purpose = 'password_reset' and accepted_at is null and expires_at > now()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table user_invitations drop column handed_to`.execute(db);
  await sql`alter table users drop column second_factor_reset_by, drop column password_link_handed_to`.execute(db);
}
