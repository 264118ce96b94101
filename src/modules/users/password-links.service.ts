import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { AppError } from '../../http/errors.js';
import { normalizeEmail } from '../../identifiers/email.js';
import { DAY_MS } from '../../jobs/clock.js';
import { type ChangeActor, recordChange, recordOwnChange } from '../audit/audit.repository.js';
import type { Mailer } from './mailer.js';
import { checkPasswordPolicy, hashPassword } from './passwords.js';
import { factorTakenByThem, linkAfterOwnReset, linkNotMailedAfterOwnReset } from './recovery-guard.js';
import { hashToken, newToken } from './secrets.js';
import { deleteUserSessions } from './sessions.repository.js';
import * as repo from './users.repository.js';
import { findWorkingLink, linkInvalid, requireUserIn, type UserScope, useLink } from './users.service.js';
import { toUserView, type UserView } from './users.view.js';

/** One e-mail a few minutes per account, and a few a day, however often the sign-in page is asked: no mail bombing. */
const SELF_SERVICE_GAP_MS = 5 * 60_000;
const SELF_SERVICE_PER_DAY = 3;

export interface PasswordLink {
  userId: string;
  /** `invitation` for a person who has not joined yet (a new one: earlier links stop working). */
  kind: 'invitation' | 'password_reset';
  /** Null when it was e-mailed: then only the person holds it, not the administrator who asked. */
  url: string | null;
  expiresAt: string;
  emailed: boolean;
  user: UserView;
}

/** What a link's page names as the member of an operator's account, as the desk calls that side. */
export const OPERATORS_NAME = 'Redflag operators';

export interface LinkCheck {
  purpose: 'invitation' | 'password_reset';
  /** The address of the account the link was made for. */
  email: string;
  /** The company's business name, or OPERATORS_NAME. */
  memberName: string;
  expiresAt: string;
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

  /**
   * A new link for the user, in the caller's transaction. An administrator's ends the user's earlier
   * unused links; one asked for from the sign-in page ends none (a stranger who knows the address
   * must not be able to cancel the link an administrator handed over).
   */
  async function newLink(
    trx: Kysely<Database>,
    user: repo.UserRow,
    kind: PasswordLink['kind'],
    by: { admin: string; endEarlier: boolean } | 'self-service',
  ) {
    const token = newToken();
    const tokenHash = hashToken(token);
    const at = now();
    const expiresAt = new Date(at.getTime() + (kind === 'invitation' ? deps.invitationTtlMs : deps.resetTtlMs));
    if (by !== 'self-service' && by.endEarlier) await repo.expireInvitations(trx, user.id);
    await repo.insertInvitation(trx, {
      user_id: user.id,
      token_hash: tokenHash,
      expires_at: expiresAt,
      purpose: kind,
      created_at: at,
      // Counted as handed to the administrator until the mail is known to have gone (decision 0136).
      handed_to: by === 'self-service' ? null : by.admin,
    });
    const path = kind === 'invitation' ? '/invitations/accept' : '/password-reset';
    return { url: `${deps.publicUrl}${path}?token=${token}`, expiresAt, tokenHash, createdAt: at };
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

  /**
   * A link for each active account of the address that has had none from the sign-in page in five
   * minutes, nor three in a day. Each account's row is locked first, so requests at once wait for
   * each other rather than each see no recent link.
   */
  async function selfServiceLinks(email: string) {
    const at = now().getTime();
    return db.transaction().execute(async (trx) => {
      const sent = [];
      for (const account of await repo.findLiveAccountsByEmail(trx, email)) {
        if (account.status !== 'active') continue;
        await repo.findUser(trx, account.id, {}, true);
        const recent = await repo.recentResetLinks(trx, account.id, new Date(at - DAY_MS));
        if (recent.length >= SELF_SERVICE_PER_DAY || recent.some((created) => created.getTime() > at - SELF_SERVICE_GAP_MS))
          continue;
        sent.push({ account, link: await newLink(trx, account, 'password_reset', 'self-service') });
      }
      return sent;
    });
  }

  return {
    /**
     * An administrator's link for one of their people: e-mailed with REDFLAG_SMTP_URL (and then not
     * answered: only the person holds it), else answered to hand over. Never for oneself: a session
     * alone, left open or stolen, must not set its owner's password (that asks the current one). Nor
     * handed to the administrator who took the person's second factor away, until they set up a new
     * one (decision 0136).
     */
    async issue(scope: UserScope, userId: string, actor: ChangeActor & { userId: string }): Promise<PasswordLink> {
      const { user, kind, link, member, afterOwnReset } = await db.transaction().execute(async (trx) => {
        const user = await requireUserIn(trx, scope, userId);
        if (user.id === actor.userId) {
          throw new AppError('INVALID_STATE', 'Not for yourself: change your password on your account page');
        }
        if (user.status === 'suspended') {
          throw new AppError('INVALID_STATE', 'This person is suspended; the operators lift a suspension first');
        }
        const afterOwnReset = factorTakenByThem(user, actor.userId);
        // Without e-mail the link can only be handed over: refused before anything is written.
        if (afterOwnReset && !deps.mailer) throw linkAfterOwnReset();
        const kind = user.status === 'invited' ? ('invitation' as const) : ('password_reset' as const);
        // After such a reset the earlier links end only once the mail has gone: a failed one changes nothing.
        const link = await newLink(trx, user, kind, { admin: actor.userId, endEarlier: !afterOwnReset });
        await recordChange(trx, actor, { companyId: user.company_id, action: 'user_password_link', subjectId: user.id });
        return { user, kind, link, member: await repo.memberNameOf(trx, user), afterOwnReset };
      });
      const emailed = await mail(user.id, (mailer) =>
        kind === 'invitation'
          ? mailer.sendInvitation({ to: user.email, inviteUrl: link.url, expiresAt: link.expiresAt, inviter: member })
          : mailer.sendPasswordReset({ to: user.email, resetUrl: link.url, expiresAt: link.expiresAt, member, askedBy: 'admin' }),
      );
      if (emailed) {
        // If this fails the link stays counted as handed over: stricter than true, never looser.
        await repo
          .markLinkMailed(db, link.tokenHash)
          .catch((err: unknown) => deps.log?.warn({ err, userId: user.id }, 'could not mark the password link as e-mailed'));
        // Those made before this one: a colleague's link handed over while the mail went stays.
        if (afterOwnReset) await repo.expireInvitations(db, user.id, link);
      } else if (afterOwnReset) {
        await repo.endLink(db, link.tokenHash);
        throw linkNotMailedAfterOwnReset();
      }
      return {
        userId: user.id,
        kind,
        url: emailed ? null : link.url,
        expiresAt: link.expiresAt.toISOString(),
        emailed,
        user: toUserView(user),
      };
    },

    /**
     * The sign-in page's "forgot your password": a link to each active account of the address, by
     * e-mail only. The answer is the same whether or not the address has an account; it says only
     * whether this service sends e-mail at all. The look-up and the mail happen after the answer
     * (`afterAnswer`), so its time does not tell either. Returns whether mail is sent at all.
     */
    requestByEmail(address: string, afterAnswer: (work: () => Promise<void>) => void): { mailed: boolean } {
      const email = normalizeEmail(address);
      if (!email.ok) throw AppError.validation([{ field: 'email', message: email.message }]);
      if (!deps.mailer) return { mailed: false };
      afterAnswer(async () => {
        for (const { account, link } of await selfServiceLinks(email.value)) {
          await mail(account.id, (mailer) =>
            mailer.sendPasswordReset({
              to: account.email,
              resetUrl: link.url,
              expiresAt: link.expiresAt,
              member: account.owner_name,
              askedBy: 'self',
            }),
          );
        }
      });
      return { mailed: true };
    },

    /**
     * What a link is for, before it is used (decision 0134): the page it opens can say whom it is
     * for and which member they join, or that it no longer works, before the person types anything.
     * It is only read: nothing is written, and the link works as before.
     */
    async check(token: string): Promise<LinkCheck> {
      const found = await findWorkingLink(db, token, now());
      if (!found) throw linkInvalid();
      const { link, user } = found;
      return {
        purpose: link.purpose,
        email: user.email,
        memberName: user.company_id ? await repo.memberNameOf(db, user) : OPERATORS_NAME,
        expiresAt: link.expires_at.toISOString(),
      };
    },

    /** Sets a new password with a reset link; every session of the person ends. */
    async accept(input: { token: string; password: string }, requestId: string): Promise<UserView> {
      const weak = checkPasswordPolicy(input.password, 'password');
      if (weak) throw AppError.validation([weak]);
      // Hashed before the transaction: argon2 takes tens of milliseconds and needs no row lock.
      const passwordHash = await hashPassword(input.password);
      const user = await db.transaction().execute(async (trx) => {
        const used = await useLink(trx, input.token, now(), 'password_reset');
        if (!used) throw linkInvalid();
        const row = used.user;
        // Kept so the administrator handed this link cannot also take the second factor (decision 0136).
        const updated = await repo.updateUser(trx, row.id, {
          password_hash: passwordHash,
          password_link_handed_to: used.link.handed_to,
        });
        await deleteUserSessions(trx, row.id);
        await recordOwnChange(trx, row, requestId, 'user_password_reset');
        return updated as repo.UserRow;
      });
      return toUserView(user);
    },
  };
}

export type PasswordLinksService = ReturnType<typeof createPasswordLinksService>;
