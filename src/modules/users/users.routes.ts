import type { FastifyRequest } from 'fastify';
import { changeActorOf, companyOf, operatorOf } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { AppError } from '../../http/errors.js';
import { errorResponses } from '../../http/openapi.js';
import type { RoutesPlugin } from '../../http/types.js';
import type { ChangeActor } from '../audit/audit.repository.js';
import type { PasswordLinksService } from './password-links.service.js';
import {
  AdminUsersQuery,
  ChangeRoleBody,
  CompanyInviteBody,
  InvitationResponse,
  OperatorInviteBody,
  PasswordLinkResponse,
  UserIdParams,
  UserResponse,
  UsersResponse,
} from './users.schemas.js';
import type { UsersService } from './users.service.js';

const USERS = '/api/v1/external/users';

/**
 * The person acting, for a way back into someone's account (decision 0132): a signed-in
 * administrator, never an API key. A key is for programs; handing one a colleague's account would
 * let whoever holds it take the account over.
 */
function personActing(request: FastifyRequest): ChangeActor & { userId: string } {
  const actor = changeActorOf(request);
  if (actor.userId === null) {
    throw new AppError('FORBIDDEN', 'A signed-in administrator does this in the desk, not an API key');
  }
  return { ...actor, userId: actor.userId };
}
const ADMIN_USERS = '/api/v1/admin/users';

/** A company admin manages the company's users; an operator admin invites anyone and suspends anyone. */
export const usersRoutes: RoutesPlugin<{ users: UsersService; passwordLinks: PasswordLinksService }> = async (
  app,
  { users, passwordLinks },
) => {
  const tags = ['users'];
  const secondFactorDescription =
    "Their authenticator secret and recovery codes are deleted and every session ends; at the next sign-in the password alone lets them set up a new second factor. Not for oneself (409): another admin does it. 409 when the person has none, and 409 for an administrator who was handed this person's password link while it still works or set their current password (decision 0136: two people recover an account). Audited as user_totp_reset.";
  const linkDescription =
    "For a person who has not joined: a new invitation (earlier links stop working). For one who has: a single-use link to choose a new password (valid REDFLAG_PASSWORD_RESET_TTL_HOURS, 24 h); their second factor stays. E-mailed too when the service has SMTP. 409 for a suspended person. An administrator who took this person's second factor away, before they set up a new one, gets the link only by e-mail to the person (decision 0136): without SMTP that is 409, and when the mail fails 503 with Retry-After (that link is ended, earlier ones still work).";

  app.get(
    USERS,
    { config: { auth: 'company' }, schema: { tags, summary: "The company's users", response: { 200: UsersResponse } } },
    async (request) => ok({ users: await users.list({ companyId: companyOf(request).companyId }) }, 'Users fetched'),
  );

  app.post(
    USERS,
    {
      config: { auth: 'company' },
      schema: {
        tags,
        summary: 'Invite a user into the company',
        description: 'Answers the single-use invite URL (valid 72 h); it is also e-mailed when the service has SMTP.',
        body: CompanyInviteBody,
        response: { 201: InvitationResponse, ...errorResponses(409) },
      },
    },
    async (request, reply) => {
      const principal = companyOf(request);
      const invitation = await users.invite({
        companyId: principal.companyId,
        email: request.body.email,
        role: request.body.role,
        invitedBy: principal.businessName,
        actor: changeActorOf(request),
      });
      return reply.code(201).send(ok(invitation, 'Invitation created'));
    },
  );

  app.patch(
    `${USERS}/:userId`,
    {
      config: { auth: 'company' },
      schema: {
        tags,
        summary: "Change a user's role (their sessions end at once); not one's own",
        params: UserIdParams,
        body: ChangeRoleBody,
        response: { 200: UserResponse, ...errorResponses(404, 409) },
      },
    },
    async (request) => {
      const { companyId, user } = companyOf(request);
      const changed = await users.changeRole(
        { companyId },
        request.params.userId,
        request.body.role,
        user?.userId,
        changeActorOf(request),
      );
      return ok({ user: changed }, 'Role changed');
    },
  );

  app.delete(
    `${USERS}/:userId`,
    {
      config: { auth: 'company' },
      schema: {
        tags,
        summary: 'Remove a user (their sessions end at once); not oneself',
        params: UserIdParams,
        response: { 200: UserResponse, ...errorResponses(404, 409) },
      },
    },
    async (request) => {
      const { companyId, user } = companyOf(request);
      return ok(
        { user: await users.remove({ companyId }, request.params.userId, user?.userId, changeActorOf(request)) },
        'User removed',
      );
    },
  );

  app.post(
    `${USERS}/:userId/password-link`,
    {
      config: { auth: 'company' },
      schema: {
        tags,
        summary: 'Send a person of the company a link to choose a password',
        description: linkDescription,
        params: UserIdParams,
        response: { 201: PasswordLinkResponse, ...errorResponses(403, 404, 409, 503) },
      },
    },
    async (request, reply) => {
      const { companyId } = companyOf(request);
      const link = await passwordLinks.issue({ companyId }, request.params.userId, personActing(request));
      return reply.code(201).send(ok(link, 'Link created'));
    },
  );

  app.post(
    `${USERS}/:userId/second-factor/reset`,
    {
      config: { auth: 'company' },
      schema: {
        tags,
        summary: "Take away a person's second factor (a lost phone); they set up a new one at their next sign-in",
        description: secondFactorDescription,
        params: UserIdParams,
        response: { 200: UserResponse, ...errorResponses(403, 404, 409) },
      },
    },
    async (request) => {
      const { companyId } = companyOf(request);
      const actor = personActing(request);
      const reset = await users.resetSecondFactor({ companyId }, request.params.userId, actor.userId, actor);
      return ok({ user: reset }, 'Second factor reset');
    },
  );

  const adminTags = ['admin: users'];
  app.post(
    `${ADMIN_USERS}/:userId/second-factor/reset`,
    {
      config: { auth: 'operator' },
      schema: {
        tags: adminTags,
        summary: "Take away any person's second factor (a lost phone); they set up a new one at their next sign-in",
        description: secondFactorDescription,
        params: UserIdParams,
        response: { 200: UserResponse, ...errorResponses(403, 404, 409) },
      },
    },
    async (request) => {
      const actor = personActing(request);
      const reset = await users.resetSecondFactor({ everyone: true }, request.params.userId, actor.userId, actor);
      return ok({ user: reset }, 'Second factor reset');
    },
  );
  app.post(
    `${ADMIN_USERS}/:userId/password-link`,
    {
      config: { auth: 'operator' },
      schema: {
        tags: adminTags,
        summary: 'Send any person a link to choose a password',
        description: linkDescription,
        params: UserIdParams,
        response: { 201: PasswordLinkResponse, ...errorResponses(403, 404, 409, 503) },
      },
    },
    async (request, reply) => {
      const link = await passwordLinks.issue({ everyone: true }, request.params.userId, personActing(request));
      return reply.code(201).send(ok(link, 'Link created'));
    },
  );
  app.get(
    ADMIN_USERS,
    {
      config: { auth: 'operator' },
      schema: {
        tags: adminTags,
        summary: 'Users of any company or of the operators',
        querystring: AdminUsersQuery,
        response: { 200: UsersResponse },
      },
    },
    async (request) => ok({ users: await users.list({ everyone: true }, request.query) }, 'Users fetched'),
  );

  app.post(
    ADMIN_USERS,
    {
      config: { auth: 'operator' },
      schema: {
        tags: adminTags,
        summary: 'Invite a user into a company or into the operators',
        body: OperatorInviteBody,
        response: { 201: InvitationResponse, ...errorResponses(404, 409) },
      },
    },
    async (request, reply) => {
      const principal = operatorOf(request);
      const invitation = await users.invite({
        ...request.body,
        invitedBy: principal.name || 'The Redflag operators',
        actor: changeActorOf(request),
      });
      return reply.code(201).send(ok(invitation, 'Invitation created'));
    },
  );

  for (const [action, suspended] of [
    ['suspend', true],
    ['activate', false],
  ] as const) {
    app.post(
      `${ADMIN_USERS}/:userId/${action}`,
      {
        config: { auth: 'operator' },
        schema: {
          tags: adminTags,
          summary: suspended ? 'Suspend a user of any company (their sessions end at once)' : 'Lift a suspension',
          params: UserIdParams,
          response: { 200: UserResponse, ...errorResponses(404, 409) },
        },
      },
      async (request) => {
        const user = await users.setSuspended(request.params.userId, suspended, changeActorOf(request));
        return ok({ user }, suspended ? 'User suspended' : 'User activated');
      },
    );
  }
};
