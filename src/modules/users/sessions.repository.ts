import { type Kysely, sql, type Transaction } from 'kysely';
import { ASYNC_COMMIT } from '../../db/async-commit.js';
import type { CompanyStatus, CompanyUserRole, Database, OperatorUserRole, UserStatus } from '../../db/schema.js';

type Db = Kysely<Database> | Transaction<Database>;

export interface SessionAuthRow {
  session_id: string;
  last_seen_at: Date;
  expires_at: Date;
  user_id: string;
  email: string;
  name: string | null;
  role: CompanyUserRole | OperatorUserRole;
  status: UserStatus;
  totp_confirmed_at: Date | null;
  company_id: string | null;
  operator_id: string | null;
  business_name: string | null;
  company_status: CompanyStatus | null;
  rate_limit_per_minute: number | null;
  operator_name: string | null;
}

/**
 * New sessions and last-seen times commit without waiting for their WAL flush (the caller tells
 * AsyncCommits, as search does): on the embedded engine a synchronous commit is an fsync on the event
 * loop, which under 10 sign-ins a second held up every search. A crash can lose a session that is
 * under a second old — its user signs in again. Ending sessions stays synchronous.
 */

export async function insertSession(
  db: Db,
  s: { token_hash: Buffer; user_id: string; created_at: Date; last_seen_at: Date; expires_at: Date },
): Promise<void> {
  await sql`insert into user_sessions (token_hash, user_id, created_at, last_seen_at, expires_at)
    select ${s.token_hash}, ${s.user_id}::uuid, ${s.created_at}, ${s.last_seen_at}, ${s.expires_at} from ${ASYNC_COMMIT}`.execute(
    db,
  );
}

/** Everything a request in a session needs, in one query: checked on every request, so revocation is immediate everywhere. */
export async function findSessionForAuth(db: Db, tokenHash: Buffer): Promise<SessionAuthRow | undefined> {
  return db
    .selectFrom('user_sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .leftJoin('companies as c', 'c.id', 'u.company_id')
    .leftJoin('operators as o', 'o.id', 'u.operator_id')
    .select([
      's.id as session_id',
      's.last_seen_at',
      's.expires_at',
      'u.id as user_id',
      'u.email',
      'u.name',
      'u.role',
      'u.status',
      'u.totp_confirmed_at',
      'u.company_id',
      'u.operator_id',
      'c.business_name',
      'c.status as company_status',
      'c.rate_limit_per_minute',
      'o.name as operator_name',
    ])
    .where('s.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

export async function touchSession(db: Db, sessionId: string, at: Date): Promise<void> {
  await sql`update user_sessions set last_seen_at = ${at} from ${ASYNC_COMMIT} where id = ${sessionId}::uuid`.execute(db);
}

export async function deleteSession(db: Db, sessionId: string): Promise<void> {
  await db.deleteFrom('user_sessions').where('id', '=', sessionId).execute();
}

/** Ends every session of a user (sign-out everywhere, password or role change, removal, suspension). */
export async function deleteUserSessions(db: Db, userId: string): Promise<void> {
  await db.deleteFrom('user_sessions').where('user_id', '=', userId).execute();
}

/**
 * Sessions past their absolute or idle end (they no longer open anything; the table would otherwise
 * keep every abandoned one); how many went.
 */
export async function deleteExpiredSessions(db: Db, now: Date, idleMs: number): Promise<number> {
  const gone = await db
    .deleteFrom('user_sessions')
    .where((eb) => eb.or([eb('expires_at', '<=', now), eb('last_seen_at', '<=', sql<Date>`${new Date(now.getTime() - idleMs)}`)]))
    .executeTakeFirst();
  return Number(gone.numDeletedRows);
}
