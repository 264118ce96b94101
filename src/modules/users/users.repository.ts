import { type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import type { Database, LinkPurpose, UsersTable } from '../../db/schema.js';
import { lockCompany } from '../companies/companies.repository.js';

type Db = Kysely<Database> | Transaction<Database>;
export type UserRow = Selectable<UsersTable>;

export async function insertUser(db: Db, user: Pick<UserRow, 'company_id' | 'operator_id' | 'email' | 'role'>): Promise<UserRow> {
  return db.insertInto('users').values(user).returningAll().executeTakeFirstOrThrow();
}

/** The live account of an address at one member (a company or the operators), if there is one. */
export async function findLiveUserByEmail(db: Db, email: string, ownerId: string): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where('email', '=', email)
    .where('status', '<>', 'removed')
    .where(sql<string>`coalesce(company_id, operator_id)`, '=', ownerId)
    .executeTakeFirst();
}

/**
 * The same, after taking a transaction lock on the address at that member: of two invitations of
 * one address at once, the second waits, finds the first and is a 409, not a unique-index failure.
 */
export async function lockAndFindLiveUser(trx: Transaction<Database>, email: string, ownerId: string) {
  await sql`select pg_advisory_xact_lock(hashtext(${`user-email:${ownerId}:${email}`}))`.execute(trx);
  return findLiveUserByEmail(trx, email, ownerId);
}

export type AccountRow = UserRow & { owner_name: string; company_status: string | null };

/**
 * Every live account of an address, at every member, with the member's name and standing:
 * sign-in's candidates. Oldest first, so the order a person is offered stays the same. The limit
 * only bounds the rows read (sign-in checks at most four of them, sessions.service.ts).
 */
export async function findLiveAccountsByEmail(db: Db, email: string): Promise<AccountRow[]> {
  return db
    .selectFrom('users')
    .leftJoin('companies', 'companies.id', 'users.company_id')
    .leftJoin('operators', 'operators.id', 'users.operator_id')
    .selectAll('users')
    .select(sql<string>`coalesce(companies.business_name, operators.name)`.as('owner_name'))
    .select('companies.status as company_status')
    .where('users.email', '=', email)
    .where('users.status', '<>', 'removed')
    .orderBy('users.created_at')
    .orderBy('users.id')
    .limit(MAX_ACCOUNTS_PER_ADDRESS)
    .execute();
}

export const MAX_ACCOUNTS_PER_ADDRESS = 50;

/** The name of the company (or operators) an account belongs to. */
export async function memberNameOf(db: Db, row: Pick<UserRow, 'company_id' | 'operator_id'>): Promise<string> {
  const found = row.company_id
    ? await db.selectFrom('companies').select('business_name as name').where('id', '=', row.company_id).executeTakeFirst()
    : await db
        .selectFrom('operators')
        .select('name')
        .where('id', '=', row.operator_id as string)
        .executeTakeFirst();
  return found?.name ?? '';
}

/** A user by id, within a company or the operators when given (another's is simply not found). */
export async function findUser(
  db: Db,
  id: string,
  scope: { companyId?: string | undefined; operatorId?: string | undefined } = {},
  forUpdate = false,
): Promise<UserRow | undefined> {
  let query = db.selectFrom('users').selectAll().where('id', '=', id).where('status', '<>', 'removed');
  if (scope.companyId) query = query.where('company_id', '=', scope.companyId);
  if (scope.operatorId) query = query.where('operator_id', '=', scope.operatorId);
  return (forUpdate ? query.forUpdate() : query).executeTakeFirst();
}

export async function listUsers(db: Db, scope: { companyId?: string | undefined; operatorId?: string | undefined }) {
  let query = db.selectFrom('users').selectAll().where('status', '<>', 'removed');
  if (scope.companyId) query = query.where('company_id', '=', scope.companyId);
  if (scope.operatorId) query = query.where('operator_id', '=', scope.operatorId);
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(1000).execute();
}

export async function updateUser(
  db: Db,
  id: string,
  changes: Partial<Omit<UserRow, 'id' | 'created_at' | 'updated_at'>>,
): Promise<UserRow | undefined> {
  return db
    .updateTable('users')
    .set({ ...changes, updated_at: new Date() })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export async function insertInvitation(
  db: Db,
  invitation: {
    user_id: string;
    token_hash: Buffer;
    expires_at: Date;
    purpose?: LinkPurpose;
    created_at?: Date;
    handed_to?: string | null;
  },
) {
  await db.insertInto('user_invitations').values(invitation).execute();
}

export type LinkRow = { id: string; user_id: string; purpose: LinkPurpose; expires_at: Date; handed_to: string | null };

/**
 * The link of a token hash if it is unused and unexpired (a newer link ends an older one by setting
 * its end to the epoch). Whether it still works for its account is the service's rule
 * (users.service.ts, openLink).
 */
export function findOpenLink(db: Db, tokenHash: Buffer, now: Date): Promise<LinkRow | undefined> {
  return db
    .selectFrom('user_invitations')
    .select(['id', 'user_id', 'purpose', 'expires_at', 'handed_to'])
    .where('token_hash', '=', tokenHash)
    .where('accepted_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

/**
 * Marks a link used, only if it is still unused and unexpired: single use under races (of two
 * accepts at once, the second updates nothing), and a link ended since it was read does not work.
 */
export async function markLinkUsed(db: Transaction<Database>, id: string, now: Date): Promise<boolean> {
  const row = await db
    .updateTable('user_invitations')
    .set({ accepted_at: now })
    .where('id', '=', id)
    .where('accepted_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Earlier unused links of a user (invitations and password resets) stop working when a new one is
 * issued: their end is set to the epoch, long past on any instance's clock (the time of issue would
 * be ahead of an instance whose clock runs behind, and the link open there for that while). With
 * `upTo`, only those made until that link (kept) end: any made since stay.
 */
export async function expireInvitations(db: Db, userId: string, upTo?: { createdAt: Date; tokenHash: Buffer }): Promise<void> {
  let query = db
    .updateTable('user_invitations')
    .set({ expires_at: new Date(0) })
    .where('user_id', '=', userId)
    .where('accepted_at', 'is', null);
  if (upTo) query = query.where('created_at', '<=', upTo.createdAt).where('token_hash', '<>', upTo.tokenHash);
  await query.execute();
}

/** Takes the second factor away (secret, replay guard, recovery codes), keeping who did it (decision 0136). */
export async function clearSecondFactor(db: Transaction<Database>, userId: string, reset: { by: string | null }): Promise<void> {
  await db.deleteFrom('user_recovery_codes').where('user_id', '=', userId).execute();
  await db
    .updateTable('users')
    .set({
      totp_secret_token: null,
      totp_confirmed_at: null,
      totp_last_step: null,
      second_factor_reset_by: reset.by,
      updated_at: new Date(),
    })
    .where('id', '=', userId)
    .execute();
}

export async function replaceRecoveryCodes(db: Transaction<Database>, userId: string, hashes: Buffer[]): Promise<void> {
  await db.deleteFrom('user_recovery_codes').where('user_id', '=', userId).execute();
  await db
    .insertInto('user_recovery_codes')
    .values(hashes.map((code_hash) => ({ user_id: userId, code_hash })))
    .execute();
}

/** Uses a recovery code once; false when it is unknown or already used. */
export async function useRecoveryCode(db: Db, userId: string, codeHash: Buffer, now: Date): Promise<boolean> {
  const row = await db
    .updateTable('user_recovery_codes')
    .set({ used_at: now })
    .where('user_id', '=', userId)
    .where('code_hash', '=', codeHash)
    .where('used_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Whether an unused recovery code matches, without using it (sign-in's choice of member only looks). */
export async function hasRecoveryCode(db: Db, userId: string, codeHash: Buffer): Promise<boolean> {
  const row = await db
    .selectFrom('user_recovery_codes')
    .select('id')
    .where('user_id', '=', userId)
    .where('code_hash', '=', codeHash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return row !== undefined;
}

/** Accepts a TOTP step only if it is later than the last accepted one (atomic: two requests, one winner). */
export async function advanceTotpStep(db: Db, userId: string, step: number): Promise<boolean> {
  const row = await db
    .updateTable('users')
    .set({ totp_last_step: String(step) })
    .where('id', '=', userId)
    .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', String(step))]))
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * The ids of a member's active admins, read under the member's own row lock (its company or its
 * operators' row): two changes to its admins at once take turns, and the second sees the first's.
 * The member's row, not the admins' rows, so the lock order is the same whichever admin each change
 * already holds. NO KEY UPDATE: the lock never holds up the member's reports, keys or users being
 * written meanwhile (their foreign keys take KEY SHARE, which it does not block).
 */
export async function activeAdminsLocked(
  db: Kysely<Database>,
  owner: { companyId: string | null; operatorId: string | null },
): Promise<string[]> {
  if (owner.companyId !== null) {
    await lockCompany(db, owner.companyId);
  } else {
    await db
      .selectFrom('operators')
      .select('id')
      .where('id', '=', owner.operatorId as string)
      .forNoKeyUpdate()
      .execute();
  }
  const rows = await db
    .selectFrom('users')
    .select('id')
    .$if(owner.companyId !== null, (q) => q.where('company_id', '=', owner.companyId as string))
    .$if(owner.companyId === null, (q) => q.where('operator_id', '=', owner.operatorId as string))
    .where('role', '=', 'admin')
    .where('status', '=', 'active')
    .execute();
  return rows.map((r) => r.id);
}

/** Whether a link handed to this administrator could still set this user's password (decision 0136). */
export async function openLinkHandedTo(db: Db, userId: string, adminId: string, now: Date): Promise<boolean> {
  const row = await db
    .selectFrom('user_invitations')
    .select('id')
    .where('user_id', '=', userId)
    .where('handed_to', '=', adminId)
    .where('accepted_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row !== undefined;
}

/** A link that reached the person's mailbox was not handed to anyone. */
export async function markLinkMailed(db: Db, tokenHash: Buffer): Promise<void> {
  await db.updateTable('user_invitations').set({ handed_to: null }).where('token_hash', '=', tokenHash).execute();
}

/** Ends one link (one that could be neither e-mailed nor handed over). */
export async function endLink(db: Db, tokenHash: Buffer): Promise<void> {
  await db
    .updateTable('user_invitations')
    .set({ expires_at: new Date(0) })
    .where('token_hash', '=', tokenHash)
    .execute();
}

/** When the user was sent each password reset link since `since`, used or not (the sign-in page's cap). */
export async function recentResetLinks(db: Db, userId: string, since: Date): Promise<Date[]> {
  const rows = await db
    .selectFrom('user_invitations')
    .select('created_at')
    .where('user_id', '=', userId)
    .where('purpose', '=', 'password_reset')
    .where('created_at', '>', since)
    .execute();
  return rows.map((row) => row.created_at);
}
