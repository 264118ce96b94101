import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Database, UsersTable } from '../../db/schema.js';

type Db = Kysely<Database> | Transaction<Database>;
export type UserRow = Selectable<UsersTable>;

export async function insertUser(db: Db, user: Pick<UserRow, 'company_id' | 'operator_id' | 'email' | 'role'>): Promise<UserRow> {
  return db.insertInto('users').values(user).returningAll().executeTakeFirstOrThrow();
}

export async function findLiveUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email).where('status', '<>', 'removed').executeTakeFirst();
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

export async function insertInvitation(db: Db, invitation: { user_id: string; token_hash: Buffer; expires_at: Date }) {
  await db.insertInto('user_invitations').values(invitation).execute();
}

/** Marks the invitation used and returns its user, only if it was unused and unexpired: single use under races. */
export async function consumeInvitation(db: Db, tokenHash: Buffer, now: Date): Promise<string | undefined> {
  const row = await db
    .updateTable('user_invitations')
    .set({ accepted_at: now })
    .where('token_hash', '=', tokenHash)
    .where('accepted_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('user_id')
    .executeTakeFirst();
  return row?.user_id;
}

/** Earlier unused invitations of a user stop working when a new one is issued. */
export async function expireInvitations(db: Db, userId: string, now: Date): Promise<void> {
  await db
    .updateTable('user_invitations')
    .set({ expires_at: now })
    .where('user_id', '=', userId)
    .where('accepted_at', 'is', null)
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
