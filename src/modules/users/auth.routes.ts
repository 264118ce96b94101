import type { FastifyReply } from 'fastify';
import { SESSION_COOKIE, sessionUserOf } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { errorResponses } from '../../http/openapi.js';
import type { RoutesPlugin } from '../../http/types.js';
import type { PasswordLinksService } from './password-links.service.js';
import type { SessionsService } from './sessions.service.js';
import {
  AcceptInvitationBody,
  ChangePasswordBody,
  EmptyResponse,
  ForgotPasswordBody,
  ForgotPasswordResponse,
  LinkCheckBody,
  LinkCheckResponse,
  MeResponse,
  RecoveryCodesResponse,
  ResetPasswordBody,
  SignInBody,
  SignInResponse,
  TotpConfirmBody,
  TotpConfirmResponse,
  TotpEnrolResponse,
  UserResponse,
} from './users.schemas.js';
import type { UsersService } from './users.service.js';

const tags = ['auth: people'];
const session = [{ session: [] }];

export interface CookiePolicy {
  /** False only on plain-HTTP localhost, where browsers would drop a Secure cookie. */
  secure: boolean;
}

/** Sign-in, sign-out, the signed-in user, TOTP enrolment, password change and reset, checking and accepting links. */
export const authRoutes: RoutesPlugin<{
  sessions: SessionsService;
  users: UsersService;
  passwordLinks: PasswordLinksService;
  cookie: CookiePolicy;
}> = async (app, { sessions, users, passwordLinks, cookie }) => {
  const endSession = (reply: FastifyReply) => reply.clearCookie(SESSION_COOKIE, { path: '/' });

  app.post(
    '/api/v1/auth/sign-in',
    {
      config: { checkOrigin: true },
      schema: {
        tags,
        summary: 'Sign in with e-mail, password and (once enrolled) a TOTP code',
        description:
          'Sets the session cookie (HttpOnly, SameSite=Strict). 401 INVALID_CREDENTIALS for a wrong e-mail or password alike; ' +
          '401 TOTP_REQUIRED when a code is needed; 409 MEMBER_CHOICE_REQUIRED when the password opens accounts at ' +
          'several members (`data.members` names them; send one as `memberId`); 429 after repeated failures.',
        body: SignInBody,
        response: { 200: SignInResponse, ...errorResponses(401, 403, 409, 429) },
      },
    },
    async (request, reply) => {
      const signedIn = await sessions.signIn(request.body, request.ip);
      reply.setCookie(SESSION_COOKIE, signedIn.token, {
        path: '/',
        httpOnly: true,
        secure: cookie.secure,
        sameSite: 'strict',
        expires: signedIn.expiresAt,
      });
      const { user, member, expiresAt, totpEnrolmentRequired } = signedIn;
      return ok({ user, member, expiresAt: expiresAt.toISOString(), totpEnrolmentRequired }, 'Signed in');
    },
  );

  app.post(
    '/api/v1/auth/sign-out',
    {
      config: { auth: 'session' },
      schema: { tags, summary: 'End this session', security: session, response: { 200: EmptyResponse } },
    },
    async (request, reply) => {
      await sessions.signOut(sessionUserOf(request).sessionId);
      endSession(reply);
      return ok({}, 'Signed out');
    },
  );

  app.post(
    '/api/v1/auth/sign-out-everywhere',
    {
      config: { auth: 'session' },
      schema: {
        tags,
        summary: "End every one of the user's sessions, on every device",
        security: session,
        response: { 200: EmptyResponse },
      },
    },
    async (request, reply) => {
      await sessions.signOutEverywhere(sessionUserOf(request).userId);
      endSession(reply);
      return ok({}, 'Signed out everywhere');
    },
  );

  app.get(
    '/api/v1/auth/me',
    {
      config: { auth: 'session' },
      schema: { tags, summary: 'The signed-in user', security: session, response: { 200: MeResponse } },
    },
    async (request) => {
      const { user, member } = await sessions.me(sessionUserOf(request).userId);
      const totpEnrolmentRequired = !user.totpEnrolled && sessions.needsTotp({ role: user.role, operator_id: user.operatorId });
      return ok({ user, member, totpEnrolmentRequired }, 'Signed-in user');
    },
  );

  app.post(
    '/api/v1/auth/totp',
    {
      config: { auth: 'session' },
      schema: {
        tags,
        summary: 'Start enrolling a TOTP second factor',
        description: 'Answers the secret once; confirm with a first code at /api/v1/auth/totp/confirm.',
        security: session,
        response: { 200: TotpEnrolResponse, ...errorResponses(409) },
      },
    },
    async (request) => ok(await sessions.enrolTotp(sessionUserOf(request).userId), 'Scan the secret, then confirm a code'),
  );

  app.post(
    '/api/v1/auth/totp/confirm',
    {
      config: { auth: 'session' },
      schema: {
        tags,
        summary: 'Confirm TOTP enrolment with a first code; answers the recovery codes, once',
        security: session,
        body: TotpConfirmBody,
        response: { 200: TotpConfirmResponse, ...errorResponses(409) },
      },
    },
    async (request) => ok(await sessions.confirmTotp(sessionUserOf(request).userId, request.body.code), 'Second factor enrolled'),
  );

  app.post(
    '/api/v1/auth/recovery-codes',
    {
      config: { auth: 'session' },
      schema: {
        tags,
        summary: 'New recovery codes, shown once; the earlier ones stop working',
        description:
          'Needs the current 6-digit code from the authenticator app (not a recovery code). Wrong codes are counted for the user: five in 15 minutes, then 429.',
        security: session,
        body: TotpConfirmBody,
        response: { 200: RecoveryCodesResponse, ...errorResponses(409) },
      },
    },
    async (request) =>
      ok(
        await sessions.newRecoveryCodes(sessionUserOf(request).userId, request.body.code, String(request.id)),
        'New recovery codes made',
      ),
  );

  app.post(
    '/api/v1/auth/password',
    {
      config: { auth: 'session' },
      schema: {
        tags,
        summary: 'Change the password; ends every session of the user, this one included',
        security: session,
        body: ChangePasswordBody,
        response: { 200: EmptyResponse, ...errorResponses(401, 429) },
      },
    },
    async (request, reply) => {
      await sessions.changePassword(sessionUserOf(request).userId, request.body);
      endSession(reply);
      return ok({}, 'Password changed; sign in again');
    },
  );

  app.post(
    '/api/v1/auth/links/check',
    {
      config: { checkOrigin: true, rateLimit: { max: 20, timeWindow: 60_000 } },
      schema: {
        tags,
        summary: 'Check an invitation or password link without using it',
        description:
          'What the link is for, the address of its account, the member it belongs to and when it ends, so its page can say so before anything is typed. ' +
          'Nothing is written and the link still works after. A link that is unknown, expired, already used or replaced by a newer one, or of an account ' +
          'no longer in the state it was made for, is `400 LINK_INVALID` (no field errors), as `/api/v1/auth/password-reset/accept` answers it.',
        body: LinkCheckBody,
        response: { 200: LinkCheckResponse, ...errorResponses(403) },
      },
    },
    async (request) => ok({ link: await passwordLinks.check(request.body.token) }, 'The link works'),
  );

  app.post(
    '/api/v1/auth/invitations/accept',
    {
      config: { checkOrigin: true, rateLimit: { max: 20, timeWindow: 60_000 } },
      schema: {
        tags,
        summary: 'Accept an invitation: choose the name and password',
        body: AcceptInvitationBody,
        response: { 200: UserResponse, ...errorResponses(403) },
      },
    },
    async (request) => ok({ user: await users.accept(request.body) }, 'Invitation accepted; sign in'),
  );

  app.post(
    '/api/v1/auth/password-reset',
    {
      config: { checkOrigin: true, rateLimit: { max: 20, timeWindow: 60_000 } },
      schema: {
        tags,
        summary: 'Forgot the password: e-mail a link to choose a new one',
        description:
          'Answers 202 the same, and as fast, whether or not the address has an account: the look-up and the mail happen after the answer. With SMTP, each active account of the address is e-mailed a single-use link (at most one every 5 minutes and three a day per account); without it (`mailed: false`) nothing is sent, and an administrator of the member sends the link instead.',
        body: ForgotPasswordBody,
        response: { 202: ForgotPasswordResponse, ...errorResponses(403) },
      },
    },
    async (request, reply) => {
      const { mailed } = passwordLinks.requestByEmail(request.body.email, (work) => {
        setImmediate(() => {
          work().catch((error: Error) =>
            request.log.warn({ err: { message: error.message } }, 'could not send the password links asked for'),
          );
        });
      });
      const message = mailed
        ? 'If an active account uses this address, we e-mail it a link to choose a new password'
        : 'This service does not send e-mail; ask an administrator of your member for a link';
      return reply.code(202).send(ok({ mailed }, message));
    },
  );

  app.post(
    '/api/v1/auth/password-reset/accept',
    {
      config: { checkOrigin: true, rateLimit: { max: 20, timeWindow: 60_000 } },
      schema: {
        tags,
        summary: 'Choose a new password with a reset link; every session of the person ends',
        description:
          'The second factor stays as it was. A link that is unknown, expired, already used or replaced by a newer one, or of an account no longer active, is `400 LINK_INVALID` (no field errors); a weak password is `400 VALIDATION_FAILED` naming `password`, and the link still works.',
        body: ResetPasswordBody,
        response: { 200: UserResponse, ...errorResponses(403) },
      },
    },
    async (request) => ok({ user: await passwordLinks.accept(request.body, String(request.id)) }, 'Password changed; sign in'),
  );
};
