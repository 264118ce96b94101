import { type Kysely, sql } from 'kysely';

/**
 * A single-use link also lets a person who forgot their password choose a new one (decision 0132):
 * the same table as invitations, which the link's purpose tells apart, so an invitation's token
 * never resets a password and a reset token never accepts an invitation.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table user_invitations add column purpose text not null default 'invitation'
    constraint user_invitations_purpose check (purpose in ('invitation', 'password_reset'))`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table user_invitations drop column purpose`.execute(db);
}
