import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { AppError } from '../../http/errors.js';
import { normalizeEmail } from '../../identifiers/email.js';
import { type ChangeActor, recordAudit, recordChange } from '../audit/audit.repository.js';
import type { Mailer } from './mailer.js';
import { checkPasswordPolicy, hashPassword } from './passwords.js';
import { hashToken, newToken } from './secrets.js';
import { deleteUserSessions } from './sessions.repository.js';
import * as repo from './users.repository.js';
import { requireUserIn, type UserScope } from './users.service.js';
import { toUserView, type UserView } from './users.view.js';

/** One e-mail a few minutes per account, however often the sign-in page is asked: no mail bombing. */
const SELF_SERVICE_GAP_MS = 5 * 60_000;

export interface PasswordLink {
  userId: string;
  /** `invitation` for a person who has not joined yet (a new one: earlier links stop working). */
  kind: 'invitation' | 'password_reset';
  url: string;
  expiresAt: string;
  emailed: boolean;
  user: UserView;
}

/**
 * Single-use links to choose a password (decision 0132): an administrator sends one to a person of
 * theirs (a fresh invitation to one who has not joined, a password reset to one who has), and a
 * person who forgot their password asks for one by e-mail from the sign-in page. The link sets the
 * password and ends every session; the second factor stays as it was.
 */
export function createPasswordLinksService(deps: {
  db: Kysely<Database>;
  publicUrl: string;
  invitationTtlMs: number;
  resetTtlMs: number;
  mailer?: Mailer | undefined;
  now: () => Date;
  log?: { warn(obj: object, msg: string): void };
}) {
  const { db, now } = deps;

  /** A new link for the user, in the caller's transaction; the user's earlier unused links stop working. */
  async function newLink(trx: Kysely<Database>, user: repo.UserRow, kind: PasswordLink['kind']) {
    const token = newToken();
    const at = now();
    const expiresAt = new Date(at.getTime() + (kind === 'invitation' ? deps.invitationTtlMs : deps.resetTtlMs));
    await repo.expireInvitations(trx, user.id, at);
    await repo.insertInvitation(trx, {
      user_id: user.id,
      token_hash: hashToken(token),
      expires_at: expiresAt,
      purpose: kind,
      created_at: at,
    });
    const path = kind === 'invitation' ? '/invitations/accept' : '/password-reset';
    return { url: `${deps.publicUrl}${path}?token=${token}`, expiresAt };
  }

  /** Mail is a convenience: a failure is logged, and the link in the answer still works. */
  async function mail(userId: string, send: (mailer: Mailer) => Promise<void>): Promise<boolean> {
    if (!deps.mailer) return false;
    try {
      await send(deps.mailer);
      return true;
    } catch (error) {
      deps.log?.warn({ err: { message: (error as Error).message }, userId }, 'could not e-mail the password link');
      return false;
    }
  }

  return {
    /** An administrator's link for one of their people: answered, and e-mailed with REDFLAG_SMTP_URL. */
    async issue(scope: UserScope, userId: string, actor?: ChangeActor): Promise<PasswordLink> {
      const { user, kind, link, member } = await db.transaction().execute(async (trx) => {
        const user = await requireUserIn(trx, scope, userId);
        if (user.status === 'suspended') {
          throw new AppError('INVALID_STATE', 'This person is suspended; the operators lift a suspension first');
        }
        const kind = user.status === 'invited' ? ('invitation' as const) : ('password_reset' as const);
        const link = await newLink(trx, user, kind);
        await recordChange(trx, actor, { companyId: user.company_id, action: 'user_password_link', subjectId: user.id });
        return { user, kind, link, member: await repo.memberNameOf(trx, user) };
      });
      const emailed = await mail(user.id, (mailer) =>
        kind === 'invitation'
          ? mailer.sendInvitation({ to: user.email, inviteUrl: link.url, expiresAt: link.expiresAt, inviter: member })
          : mailer.sendPasswordReset({ to: user.email, resetUrl: link.url, expiresAt: link.expiresAt, member, askedBy: 'admin' }),
      );
      return { userId: user.id, kind, url: link.url, expiresAt: link.expiresAt.toISOString(), emailed, user: toUserView(user) };
    },

    /**
     * The sign-in page's "forgot your password": a link to each active account of the address, by
     * e-mail only. The answer is the same whether or not the address has an account; it says only
     * whether this service sends e-mail at all. Mail goes out after the answer, so its time does not
     * tell either.
     */
    async requestByEmail(address: string): Promise<{ mailed: boolean }> {
      const email = normalizeEmail(address);
      if (!email.ok) throw AppError.validation([{ field: 'email', message: email.message }]);
      if (!deps.mailer) return { mailed: false };
      const since = new Date(now().getTime() - SELF_SERVICE_GAP_MS);
      const links = await db.transaction().execute(async (trx) => {
        const accounts = await repo.findLiveAccountsByEmail(trx, email.value);
        const sent = [];
        for (const account of accounts) {
          if (account.status !== 'active' || (await repo.hasRecentResetLink(trx, account.id, since))) continue;
          sent.push({ account, link: await newLink(trx, account, 'password_reset') });
        }
        return sent;
      });
      for (const { account, link } of links) {
        void mail(account.id, (mailer) =>
          mailer.sendPasswordReset({
            to: account.email,
            resetUrl: link.url,
            expiresAt: link.expiresAt,
            member: account.owner_name,
            askedBy: 'self',
          }),
        );
      }
      return { mailed: true };
    },

    /** Sets a new password with a reset link; every session of the person ends. */
    async accept(input: { token: string; password: string }, requestId: string): Promise<UserView> {
      const weak = checkPasswordPolicy(input.password, 'password');
      if (weak) throw AppError.validation([weak]);
      // Hashed before the transaction: argon2 takes tens of milliseconds and needs no row lock.
      const passwordHash = await hashPassword(input.password);
      const user = await db.transaction().execute(async (trx) => {
        const userId = await repo.consumeInvitation(trx, hashToken(input.token), now(), 'password_reset');
        const row = userId ? await repo.findUser(trx, userId, {}, true) : undefined;
        if (row?.status !== 'active') {
          throw new AppError('LINK_INVALID', 'This link is unknown, expired or already used; ask for a new one');
        }
        const updated = await repo.updateUser(trx, row.id, { password_hash: passwordHash });
        await deleteUserSessions(trx, row.id);
        await recordAudit(trx, {
          companyId: row.company_id ?? undefined,
          operatorId: row.operator_id ?? undefined,
          keyId: null,
          userId: row.id,
          requestId,
          action: 'user_password_reset',
          subjectId: row.id,
        });
        return updated as repo.UserRow;
      });
      return toUserView(user);
    },
  };
}

export type PasswordLinksService = ReturnType<typeof createPasswordLinksService>;
