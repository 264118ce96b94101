import type { Kysely } from 'kysely';
import type { Keyring } from '../../crypto/keyring.js';
import type { Database } from '../../db/schema.js';
import type { AsyncCommits } from '../../db/wal-flusher.js';
import { AppError } from '../../http/errors.js';
import { recordOwnChange } from '../audit/audit.repository.js';
import { findCompanyById } from '../companies/companies.repository.js';
import { checkPasswordPolicy, dummyPasswordHash, hashPassword, verifyPassword } from './passwords.js';
import { hashToken, newRecoveryCode, newToken, normalizeRecoveryCode, RECOVERY_CODE_SHAPE } from './secrets.js';
import * as sessions from './sessions.repository.js';
import type { SignInThrottle } from './sign-in-throttle.js';
import { newTotpSecret, totpStep, totpUrl } from './totp.js';
import * as repo from './users.repository.js';
import { ownerOf, toUserView, type UserView } from './users.view.js';

export interface SessionPolicy {
  idleMs: number;
  absoluteMs: number;
  /** Whether analysts and viewers must enrol a second factor too (admins and operators always must). */
  totpRequiredForAll: boolean;
}

export interface SignInInput {
  email: string;
  password: string;
  totp?: string | undefined;
  /** The company (or operators) to sign in to, needed only when the password opens accounts at several. */
  memberId?: string | undefined;
}

/** The company (or operators) an account belongs to. */
export interface Member {
  id: string;
  name: string;
}

export interface SignedIn {
  /** The cookie's value: shown to the browser only, stored as a hash. */
  token: string;
  expiresAt: Date;
  user: UserView;
  member: Member;
  totpEnrolmentRequired: boolean;
}

const RECOVERY_CODES = 10;
/**
 * argon2 checks per sign-in, whatever the address: the accounts it has (the oldest first, at most
 * this many; a fifth member's account is reached with `memberId`) and dummy hashes for the rest.
 */
const SIGN_IN_CHECKS = 4;
const TOTP_LABEL = 'totp';
/** last_seen_at is written at most this often: idle time is kept to the minute, not a write per request. */
const TOUCH_EVERY_MS = 60_000;

export function needsTotp(user: { role: string; operator_id: string | null }, policy: SessionPolicy): boolean {
  return user.role === 'admin' || user.operator_id !== null || policy.totpRequiredForAll;
}

export function createSessionsService(deps: {
  db: Kysely<Database>;
  keyring: Keyring;
  throttle: SignInThrottle;
  policy: SessionPolicy;
  now: () => Date;
  /** Told after each asynchronously committed session write (see sessions.repository.ts). */
  asyncCommits: Pick<AsyncCommits, 'note'>;
}) {
  const { db, keyring, throttle, policy, now, asyncCommits } = deps;

  const sealContext = (user: repo.UserRow) => ({ companyId: ownerOf(user), recordId: user.id, label: TOTP_LABEL });

  /**
   * A six-digit code of a later time step than any accepted before, or an unused recovery code.
   * `use`: the code is used up (a sign-in or a confirmation); without it the code is only looked at
   * (sign-in's choice of member, whose chosen account's own check then uses it).
   */
  async function secondFactorOk(user: repo.UserRow, code: string, use = true): Promise<boolean> {
    const recovery = normalizeRecoveryCode(code);
    if (RECOVERY_CODE_SHAPE.test(recovery)) {
      const hash = hashToken(recovery);
      return use ? repo.useRecoveryCode(db, user.id, hash, now()) : repo.hasRecoveryCode(db, user.id, hash);
    }
    if (!user.totp_secret_token) return false;
    const step = totpStep(keyring.open(user.totp_secret_token, sealContext(user)), code.trim(), now());
    if (step === undefined) return false;
    if (use) return repo.advanceTotpStep(db, user.id, step);
    return user.totp_last_step === null || step > Number(user.totp_last_step);
  }

  /**
   * The one account of the address that the password opens. An address may have an account at
   * several members (decision 0121): each is tried, and when the password opens more than one that
   * can be used, the person is asked which member, naming only those. Every sign-in runs the same
   * number of argon2 checks (dummy hashes fill in for missing accounts and invited ones without a
   * password), so its time says nothing of how many accounts an address has, or whether it has any.
   */
  async function accountOpened(input: SignInInput): Promise<repo.AccountRow | undefined> {
    const accounts = (await repo.findLiveAccountsByEmail(db, input.email.trim().toLowerCase()))
      .filter((account) => input.memberId === undefined || ownerOf(account) === input.memberId.toLowerCase())
      .slice(0, SIGN_IN_CHECKS);
    const opened: repo.AccountRow[] = [];
    for (let i = 0; i < SIGN_IN_CHECKS; i++) {
      const account = accounts[i];
      const hash = account?.password_hash ?? (await dummyPasswordHash());
      const ok = await verifyPassword(hash, input.password);
      if (ok && account?.password_hash) opened.push(account);
    }
    // A suspended account, or one at a suspended company, is no choice to offer: it only refuses.
    const usable = opened.filter((account) => account.status === 'active' && account.company_status !== 'suspended');
    if (usable.length <= 1) return usable[0] ?? opened[0];
    const choices = await choicesAfterSecondFactor(usable, input.totp);
    if (choices.length === 1) return choices[0];
    throw new AppError('MEMBER_CHOICE_REQUIRED', 'This address has an account at more than one member; choose one', {
      members: choices.map((account) => ({ memberId: ownerOf(account), name: account.owner_name })),
    });
  }

  /**
   * The members a person who opened several accounts may be told of. An account with a second
   * factor is named only once its code fits (a stolen password alone must not say where its owner
   * works): without a code the answer is TOTP_REQUIRED, naming only the accounts without one; with a
   * code that fits none, TOTP_INVALID. An account without a second factor opens with the password
   * alone, so it is named, beside those whose code fits (or chosen alone with `memberId`).
   */
  async function choicesAfterSecondFactor(usable: repo.AccountRow[], totp: string | undefined): Promise<repo.AccountRow[]> {
    const guarded = usable.filter((account) => account.totp_confirmed_at !== null);
    const open = usable.filter((account) => account.totp_confirmed_at === null);
    if (guarded.length === 0) return open;
    // No code: the guarded accounts stay unnamed, and those the password alone opens are named
    // (it opens them anyway), so a person without the authenticator can still choose one of them.
    if (!totp) {
      throw new AppError(
        'TOTP_REQUIRED',
        'Send the code from your authenticator app as totp',
        open.length > 0 ? { members: open.map((account) => ({ memberId: ownerOf(account), name: account.owner_name })) } : {},
      );
    }
    const fitting: repo.AccountRow[] = [];
    for (const account of guarded) if (await secondFactorOk(account, totp, false)) fitting.push(account);
    // A code that fits none is a wrong code, counted as a failed sign-in, even when an account
    // without a second factor would open: taking that account instead made every guess a success,
    // so the codes could be tried without limit (and a mistyped code landed at another member).
    if (fitting.length === 0) throw new AppError('TOTP_INVALID', 'The code is wrong or has already been used');
    return [...open, ...fitting];
  }

  async function requireActiveUser(userId: string): Promise<repo.UserRow> {
    const user = await repo.findUser(db, userId);
    if (user?.status !== 'active') throw new AppError('SESSION_INVALID', 'Sign in again');
    return user;
  }

  return {
    async signIn(input: SignInInput, address: string): Promise<SignedIn> {
      const retryAfter = await throttle.retryAfter(input.email, address);
      if (retryAfter !== undefined) {
        throw new AppError('RATE_LIMITED', `Too many failed sign-ins; retry in ${retryAfter} s`, { retryAfter });
      }
      const user = await accountOpened(input).catch(async (error: unknown) => {
        // A code that fits none of the accounts is a failed sign-in like any wrong code.
        if (error instanceof AppError && error.code === 'TOTP_INVALID') await throttle.recordFailure(input.email, address);
        throw error;
      });
      if (!user) {
        await throttle.recordFailure(input.email, address);
        throw new AppError('INVALID_CREDENTIALS', 'The e-mail address or password is wrong');
      }
      if (user.totp_confirmed_at) {
        if (!input.totp) throw new AppError('TOTP_REQUIRED', 'Send the code from your authenticator app as totp');
        if (!(await secondFactorOk(user, input.totp))) {
          await throttle.recordFailure(input.email, address);
          throw new AppError('TOTP_INVALID', 'The code is wrong or has already been used');
        }
      }
      if (user.status !== 'active') throw new AppError('FORBIDDEN', 'This account is suspended');
      if (user.company_id) {
        const company = await findCompanyById(db, user.company_id);
        if (company?.status !== 'active') throw new AppError('FORBIDDEN', 'The company is suspended');
      }
      const token = newToken();
      const at = now();
      const expiresAt = new Date(at.getTime() + policy.absoluteMs);
      await sessions.insertSession(db, {
        token_hash: hashToken(token),
        user_id: user.id,
        created_at: at,
        last_seen_at: at,
        expires_at: expiresAt,
      });
      asyncCommits.note();
      return {
        token,
        expiresAt,
        user: toUserView(user),
        member: { id: ownerOf(user), name: user.owner_name },
        totpEnrolmentRequired: !user.totp_confirmed_at && needsTotp(user, policy),
      };
    },

    /** The session behind a cookie, or undefined when it is unknown, idle too long, past its end or its user is gone. */
    async authenticate(token: string): Promise<sessions.SessionAuthRow | undefined> {
      const row = await sessions.findSessionForAuth(db, hashToken(token));
      if (!row) return undefined;
      const at = now().getTime();
      if (row.expires_at.getTime() <= at || row.last_seen_at.getTime() + policy.idleMs <= at) {
        await sessions.deleteSession(db, row.session_id);
        return undefined;
      }
      if (row.status !== 'active' || row.company_status === 'suspended') return undefined;
      if (at - row.last_seen_at.getTime() >= TOUCH_EVERY_MS) {
        await sessions.touchSession(db, row.session_id, new Date(at));
        asyncCommits.note();
      }
      return row;
    },

    async signOut(sessionId: string): Promise<void> {
      await sessions.deleteSession(db, sessionId);
    },

    /** Ends every session of the user: a lost phone, a shared computer left signed in. */
    async signOutEverywhere(userId: string): Promise<void> {
      await sessions.deleteUserSessions(db, userId);
    },

    async me(userId: string): Promise<{ user: UserView; member: Member }> {
      const user = await requireActiveUser(userId);
      return { user: toUserView(user), member: { id: ownerOf(user), name: await repo.memberNameOf(db, user) } };
    },

    /** Starts (or restarts, until confirmed) TOTP enrolment: the secret is sealed like an identifier. */
    async enrolTotp(userId: string): Promise<{ secret: string; otpauthUrl: string }> {
      const user = await requireActiveUser(userId);
      if (user.totp_confirmed_at) throw new AppError('INVALID_STATE', 'A second factor is already enrolled');
      const secret = newTotpSecret();
      await repo.updateUser(db, user.id, { totp_secret_token: keyring.seal(secret, sealContext(user)), totp_last_step: null });
      return { secret, otpauthUrl: totpUrl(secret, user.email, await repo.memberNameOf(db, user)) };
    },

    /** Confirms enrolment with a first code; answers the recovery codes, shown this once. */
    async confirmTotp(userId: string, code: string): Promise<{ recoveryCodes: string[]; user: UserView }> {
      const user = await requireActiveUser(userId);
      if (user.totp_confirmed_at) throw new AppError('INVALID_STATE', 'A second factor is already enrolled');
      if (!user.totp_secret_token) throw new AppError('INVALID_STATE', 'Start enrolment with POST /api/v1/auth/totp first');
      // A code of the wrong shape is said to be one: "wrong or already used" sent a person who typed
      // two digits looking for a used code.
      if (!/^\d{6}$/.test(code.trim())) {
        throw AppError.validation([{ field: 'code', message: 'must be the 6 digits your authenticator app shows now' }]);
      }
      if (!(await secondFactorOk(user, code))) {
        throw AppError.validation([{ field: 'code', message: 'is wrong or has already been used' }]);
      }
      const recoveryCodes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
      const updated = await db.transaction().execute(async (trx) => {
        await repo.replaceRecoveryCodes(
          trx,
          user.id,
          recoveryCodes.map((c) => hashToken(normalizeRecoveryCode(c))),
        );
        return repo.updateUser(trx, user.id, { totp_confirmed_at: now() });
      });
      return { recoveryCodes, user: toUserView(updated as repo.UserRow) };
    },

    /**
     * New recovery codes, shown this once; the earlier ones stop working. Asks for a code from the
     * authenticator app (not a recovery code): a session alone, left open or stolen, must not mint
     * codes that outlive it. Wrong codes are counted for the user, as wrong passwords are.
     */
    async newRecoveryCodes(userId: string, code: string, requestId: string): Promise<{ recoveryCodes: string[] }> {
      const user = await requireActiveUser(userId);
      if (!user.totp_confirmed_at) throw new AppError('INVALID_STATE', 'No second factor is set up; set one up first');
      const retryAfter = await throttle.userRetryAfter(user.id);
      if (retryAfter !== undefined) {
        throw new AppError('RATE_LIMITED', `Too many wrong codes; retry in ${retryAfter} s`, { retryAfter });
      }
      if (!/^\d{6}$/.test(code.trim())) {
        throw AppError.validation([{ field: 'code', message: 'must be the 6 digits your authenticator app shows now' }]);
      }
      if (!(await secondFactorOk(user, code))) {
        await throttle.recordUserFailure(user.id);
        throw AppError.validation([{ field: 'code', message: 'is wrong or has already been used' }]);
      }
      const recoveryCodes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
      await db.transaction().execute(async (trx) => {
        await repo.replaceRecoveryCodes(
          trx,
          user.id,
          recoveryCodes.map((c) => hashToken(normalizeRecoveryCode(c))),
        );
        await recordOwnChange(trx, user, requestId, 'user_recovery_codes');
      });
      return { recoveryCodes };
    },

    /**
     * A new password ends every session of the user, this one included. Wrong current passwords are
     * counted for the user (five in the sign-in window, then 429): a session left open, or stolen,
     * must not be a way to guess the password without limit.
     */
    async changePassword(userId: string, input: { currentPassword: string; newPassword: string }): Promise<void> {
      const user = await requireActiveUser(userId);
      const retryAfter = await throttle.userRetryAfter(user.id);
      if (retryAfter !== undefined) {
        throw new AppError('RATE_LIMITED', `Too many wrong passwords; retry in ${retryAfter} s`, { retryAfter });
      }
      if (!user.password_hash || !(await verifyPassword(user.password_hash, input.currentPassword))) {
        await throttle.recordUserFailure(user.id);
        throw new AppError('INVALID_CREDENTIALS', 'The current password is wrong');
      }
      const weak = checkPasswordPolicy(input.newPassword, 'newPassword');
      if (weak) throw AppError.validation([weak]);
      const passwordHash = await hashPassword(input.newPassword);
      await db.transaction().execute(async (trx) => {
        // A password of their own: no administrator who handed a link knows it now (decision 0136).
        await repo.updateUser(trx, user.id, { password_hash: passwordHash, password_link_handed_to: null });
        await sessions.deleteUserSessions(trx, user.id);
      });
    },

    needsTotp: (user: { role: string; operator_id: string | null }) => needsTotp(user, policy),
  };
}

export type SessionsService = ReturnType<typeof createSessionsService>;
