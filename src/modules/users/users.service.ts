import type { Kysely, Transaction } from 'kysely';
import type { CompanyUserRole, Database, LinkPurpose, OperatorUserRole, UserStatus } from '../../db/schema.js';
import { AppError } from '../../http/errors.js';
import { COMPANY_ROLES, OPERATOR_ROLES } from '../../http/roles.js';
import { normalizeEmail } from '../../identifiers/email.js';
import { type ChangeActor, recordChange } from '../audit/audit.repository.js';
import { findCompanyById } from '../companies/companies.repository.js';
import { isUuid } from '../ids.js';
import { findOperatorById } from '../operators/operators.repository.js';
import { unseenProblem, visibleLength } from '../trimmed-text.js';
import type { Mailer } from './mailer.js';
import { checkPasswordPolicy, hashPassword } from './passwords.js';
import { passwordSetThroughThem, resetAfterOwnLink } from './recovery-guard.js';
import { hashToken, newToken } from './secrets.js';
import { deleteUserSessions } from './sessions.repository.js';
import * as repo from './users.repository.js';
import { toUserView, type UserView } from './users.view.js';

/** Which users a caller may see and manage: one company's, the operators', or (an operator admin) anyone's. */
export type UserScope = { companyId: string } | { operatorId: string } | { everyone: true };

export interface InviteInput {
  companyId?: string | undefined;
  operatorId?: string | undefined;
  email: string;
  role: string;
  /** Named in the e-mail. */
  invitedBy?: string | undefined;
  /** Who invites, for the audit trail (none from the command line). */
  actor?: ChangeActor | undefined;
}

export interface Invitation {
  userId: string;
  inviteUrl: string;
  expiresAt: string;
  /** Whether the invitation also went out by e-mail (only with REDFLAG_SMTP_URL). */
  emailed: boolean;
  user: UserView;
}

export const NAME_MAX_LENGTH = 200;

function scopeFilter(scope: UserScope) {
  if ('companyId' in scope) return { companyId: scope.companyId };
  if ('operatorId' in scope) return { operatorId: scope.operatorId };
  return {};
}

/** A user the caller may manage, locked; anyone else's is the 404 of a random id. */
export async function requireUserIn(db: Kysely<Database>, scope: UserScope, id: string) {
  const row = isUuid(id) ? await repo.findUser(db, id.toLowerCase(), scopeFilter(scope), true) : undefined;
  if (!row) throw AppError.notFound('User not found');
  return row;
}

/** The account each kind of link is for: an invitation for a person who has not joined, a reset for an active one. */
const ACCOUNT_STATUS_FOR: Record<LinkPurpose, UserStatus> = { invitation: 'invited', password_reset: 'active' };

/** What a link that no longer works answers, to whoever holds it (decision 0134). */
export const linkInvalid = () => new AppError('LINK_INVALID', 'This link is unknown, expired or already used; ask for a new one');

/**
 * THE rule of whether a link works, for accepting an invitation, setting a password and checking a
 * link alike (decision 0134): unused, unexpired (a newer link ends the older ones), of the purpose
 * asked for when one is, and its account in the state the link is for (not removed, suspended, or
 * joined already for an invitation). `lock` takes the account's row, as every change to a person's
 * links does first (an administrator's new link ends the older ones under it): the link's own row
 * is not locked here, so two such changes never wait for each other in opposite orders.
 */
async function openLink(db: Kysely<Database>, token: string, at: Date, purpose: LinkPurpose | undefined, lock: boolean) {
  const link = await repo.findOpenLink(db, hashToken(token), at);
  if (!link || (purpose !== undefined && link.purpose !== purpose)) return undefined;
  const user = await repo.findUser(db, link.user_id, {}, lock);
  return user?.status === ACCOUNT_STATUS_FOR[link.purpose] ? { link, user } : undefined;
}

/** A link that works, looked at only: nothing is written, and it still works after. */
export function findWorkingLink(db: Kysely<Database>, token: string, at: Date) {
  return openLink(db, token, at, undefined, false);
}

/**
 * Uses a link of this purpose once, in the accept's transaction; its account, locked, or undefined
 * when it does not work. The link is marked used only if it is still unused and unexpired under the
 * account's lock: one ended or used while this waited for the lock does not work.
 */
export async function useLink(trx: Transaction<Database>, token: string, at: Date, purpose: LinkPurpose) {
  const found = await openLink(trx, token, at, purpose, true);
  return found && (await repo.markLinkUsed(trx, found.link.id, at)) ? found : undefined;
}

export function createUsersService(deps: {
  db: Kysely<Database>;
  publicUrl: string;
  invitationTtlMs: number;
  mailer?: Mailer | undefined;
  now: () => Date;
  log?: { warn(obj: object, msg: string): void };
}) {
  const { db, now } = deps;

  const requireUser = (scope: UserScope, id: string, trx: Kysely<Database> = db) => requireUserIn(trx, scope, id);

  /**
   * A member's own change never leaves it without an active admin: nobody could then manage its
   * keys, people or webhooks but the operators. Read under the member's lock, so two demotions at
   * once cannot each see the other still there. The operators' own tools (`everyone`) may, to shut
   * out a compromised last admin.
   */
  async function keepAnAdmin(trx: Kysely<Database>, scope: UserScope, row: repo.UserRow): Promise<void> {
    if ('everyone' in scope || row.role !== 'admin' || row.status !== 'active') return;
    const admins = await repo.activeAdminsLocked(trx, { companyId: row.company_id, operatorId: row.operator_id });
    if (admins.every((id) => id === row.id)) {
      throw new AppError('INVALID_STATE', 'This is the last admin; make another person an admin first');
    }
  }

  function checkRole(side: 'company' | 'operator', role: string, field = 'role'): CompanyUserRole | OperatorUserRole {
    const roles: readonly string[] = side === 'company' ? COMPANY_ROLES : OPERATOR_ROLES;
    if (!roles.includes(role)) throw AppError.validation([{ field, message: `must be one of ${roles.join(', ')}` }]);
    return role as CompanyUserRole | OperatorUserRole;
  }

  async function ownerExists(input: InviteInput): Promise<void> {
    const found = input.companyId
      ? isUuid(input.companyId) &&
        // The built-in public-reports company is not a member: no one signs in as it.
        (await findCompanyById(db, input.companyId.toLowerCase()))
      : isUuid(input.operatorId ?? '') && (await findOperatorById(db, (input.operatorId as string).toLowerCase()));
    if (!found) throw AppError.notFound(input.companyId ? 'Company not found' : 'Operator not found');
  }

  return {
    /** Creates the user (status `invited`) and a single-use link valid for the invitation TTL. */
    async invite(input: InviteInput): Promise<Invitation> {
      if (Boolean(input.companyId) === Boolean(input.operatorId)) {
        throw AppError.validation([{ field: 'companyId', message: 'give exactly one of companyId and operatorId' }]);
      }
      const email = normalizeEmail(input.email);
      if (!email.ok) throw AppError.validation([{ field: 'email', message: email.message }]);
      const role = checkRole(input.companyId ? 'company' : 'operator', input.role);
      await ownerExists(input);
      const token = newToken();
      const at = now();
      const expiresAt = new Date(at.getTime() + deps.invitationTtlMs);
      const user = await db.transaction().execute(async (trx) => {
        // Only this member's own accounts are looked at: whether the address has an account at another
        // member is that member's business (decision 0121).
        const ownerId = (input.companyId ?? input.operatorId ?? '').toLowerCase();
        if (await repo.lockAndFindLiveUser(trx, email.value, ownerId)) {
          throw new AppError('INVALID_STATE', 'A user with this e-mail address already exists');
        }
        const row = await repo.insertUser(trx, {
          company_id: input.companyId?.toLowerCase() ?? null,
          operator_id: input.operatorId?.toLowerCase() ?? null,
          email: email.value,
          role,
        });
        await repo.insertInvitation(trx, { user_id: row.id, token_hash: hashToken(token), expires_at: expiresAt });
        await recordChange(trx, input.actor, { companyId: row.company_id, action: 'user_invite', subjectId: row.id });
        return row;
      });
      const inviteUrl = `${deps.publicUrl}/invitations/accept?token=${token}`;
      let emailed = false;
      if (deps.mailer) {
        try {
          await deps.mailer.sendInvitation({ to: email.value, inviteUrl, expiresAt, inviter: input.invitedBy ?? 'Redflag' });
          emailed = true;
        } catch (error) {
          // The URL in the answer still works: mail is a convenience, not the only way.
          deps.log?.warn({ err: { message: (error as Error).message }, userId: user.id }, 'could not e-mail the invitation');
        }
      }
      return { userId: user.id, inviteUrl, expiresAt: expiresAt.toISOString(), emailed, user: toUserView(user) };
    },

    /** Sets the name and password of an invited user; the token works once, before it expires. */
    async accept(input: { token: string; password: string; name: string }): Promise<UserView> {
      const name = input.name.trim();
      // Shown to colleagues and in the audit trail: there to see, and read as it is written.
      const nameProblem = unseenProblem(name);
      const errors = [
        checkPasswordPolicy(input.password, 'password'),
        nameProblem
          ? { field: 'name', message: nameProblem }
          : visibleLength(name) === 0 || name.length > NAME_MAX_LENGTH
            ? { field: 'name', message: `must be 1 to ${NAME_MAX_LENGTH} characters` }
            : undefined,
      ].filter((e) => e !== undefined);
      if (errors.length > 0) throw AppError.validation(errors);
      // Hashed before the transaction: argon2 takes tens of milliseconds and needs no row lock.
      const passwordHash = await hashPassword(input.password);
      const user = await db.transaction().execute(async (trx) => {
        const used = await useLink(trx, input.token, now(), 'invitation');
        if (!used) throw new AppError('INVITATION_INVALID', 'The invitation is unknown, expired or already used');
        return repo.updateUser(trx, used.user.id, {
          name,
          password_hash: passwordHash,
          status: 'active',
          // Not a recovery: a first password on an account with no history and no second factor yet,
          // whoever held the invitation (decision 0136).
          password_link_handed_to: null,
        });
      });
      return toUserView(user as repo.UserRow);
    },

    async list(scope: UserScope, filter: { companyId?: string | undefined; operatorId?: string | undefined } = {}) {
      const rows = await repo.listUsers(db, { ...filter, ...scopeFilter(scope) });
      return rows.map(toUserView);
    },

    /**
     * A new role takes effect at once: the user's sessions end and they sign in again. `actorId`, the
     * signed-in admin, may not demote themselves (a company could lose its last admin that way).
     */
    async changeRole(scope: UserScope, id: string, role: string, actorId?: string, actor?: ChangeActor): Promise<UserView> {
      return db.transaction().execute(async (trx) => {
        const row = await requireUser(scope, id, trx);
        if (row.id === actorId) throw new AppError('INVALID_STATE', 'You cannot change your own role');
        const checked = checkRole(row.company_id ? 'company' : 'operator', role);
        if (checked !== 'admin') await keepAnAdmin(trx, scope, row);
        const updated = await repo.updateUser(trx, row.id, { role: checked });
        await deleteUserSessions(trx, row.id);
        await recordChange(trx, actor, { companyId: row.company_id, action: 'user_role', subjectId: row.id });
        return toUserView(updated as repo.UserRow);
      });
    },

    async remove(scope: UserScope, id: string, actorId?: string, actor?: ChangeActor): Promise<UserView> {
      return db.transaction().execute(async (trx) => {
        const row = await requireUser(scope, id, trx);
        if (row.id === actorId) throw new AppError('INVALID_STATE', 'You cannot remove yourself');
        await keepAnAdmin(trx, scope, row);
        const updated = await repo.updateUser(trx, row.id, { status: 'removed', password_hash: null });
        await deleteUserSessions(trx, row.id);
        await recordChange(trx, actor, { companyId: row.company_id, action: 'user_remove', subjectId: row.id });
        return toUserView(updated as repo.UserRow);
      });
    },

    /**
     * A person who lost their authenticator app and their recovery codes: their second factor is
     * taken away and every session ends; at the next sign-in the password alone lets them set up a
     * new one, as on their first day. Never one's own (a session alone must not remove the factor
     * that guards it): another admin does it.
     */
    async resetSecondFactor(scope: UserScope, id: string, actorId?: string, actor?: ChangeActor): Promise<UserView> {
      const { user, member } = await db.transaction().execute(async (trx) => {
        const row = await requireUser(scope, id, trx);
        if (row.id === actorId) throw new AppError('INVALID_STATE', 'You cannot reset your own second factor; ask another admin');
        if (!row.totp_confirmed_at) throw new AppError('INVALID_STATE', 'This person has no second factor set up');
        const at = now();
        const handedToThem =
          actorId && (passwordSetThroughThem(row, actorId) || (await repo.openLinkHandedTo(trx, row.id, actorId, at)));
        if (handedToThem) throw resetAfterOwnLink();
        await repo.clearSecondFactor(trx, row.id, { by: actorId ?? null });
        await deleteUserSessions(trx, row.id);
        await recordChange(trx, actor, { companyId: row.company_id, action: 'user_totp_reset', subjectId: row.id });
        return { user: (await repo.findUser(trx, row.id)) as repo.UserRow, member: await repo.memberNameOf(trx, row) };
      });
      try {
        await deps.mailer?.sendSecondFactorReset({ to: user.email, member });
      } catch (error) {
        deps.log?.warn({ err: { message: (error as Error).message }, userId: user.id }, 'could not tell the person of the reset');
      }
      return toUserView(user);
    },

    async setSuspended(id: string, suspended: boolean, actor?: ChangeActor): Promise<UserView> {
      return db.transaction().execute(async (trx) => {
        const row = await requireUser({ everyone: true }, id, trx);
        if (row.status === 'invited') throw new AppError('INVALID_STATE', 'The user has not accepted the invitation yet');
        const updated = await repo.updateUser(trx, row.id, { status: suspended ? 'suspended' : 'active' });
        await deleteUserSessions(trx, row.id);
        const action = suspended ? 'user_suspend' : 'user_activate';
        await recordChange(trx, actor, { companyId: row.company_id, action, subjectId: row.id });
        return toUserView(updated as repo.UserRow);
      });
    },
  };
}

export type UsersService = ReturnType<typeof createUsersService>;
