import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ChangeActor } from '../modules/audit/audit.repository.js';
import type { CompanyPrincipal, KeyAuthenticator, OperatorPrincipal, Principal } from '../modules/keys/keys.authenticator.js';
import type { SessionAuthRow } from '../modules/users/sessions.repository.js';
import { AppError } from './errors.js';
import type { FailedKeyGuard } from './failed-key-guard.js';
import { roleMayCall, type UserRole } from './roles.js';

export type { CompanyPrincipal, OperatorPrincipal, Principal };

/**
 * Who may call a route: a company, an operator, or either — by API key, or by a user's session
 * whose role the table in roles.ts allows; `session`: any signed-in user, even one who has not yet
 * enrolled the second factor (sign-out, me, TOTP enrolment); `person`: a signed-in user only (the
 * route is about a person, whom a key does not name), held to the second factor and the role table
 * like any other session. A route without `auth` is public.
 */
export type AuthRequirement = 'company' | 'operator' | 'any' | 'session' | 'person';

/** Routes a session alone may call: an API key names no person. */
const SESSION_ONLY: ReadonlySet<AuthRequirement | undefined> = new Set(['session', 'person']);

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller, set before anything else runs on an authenticated route; null on public routes. */
    principal: Principal | null;
  }
  interface FastifyContextConfig {
    auth?: AuthRequirement;
    /** Client addresses that may call the route without a key (an allow-list; /metrics uses it). */
    keylessFrom?: (address: string) => boolean;
    /** A public route that browsers post to (sign-in, accept an invitation): a foreign Origin is refused. */
    checkOrigin?: boolean;
  }
}

export const API_KEY_HEADER = 'x-api-key';
export const SESSION_COOKIE = 'redflag_session';

export interface SessionAuthenticator {
  authenticate(token: string): Promise<SessionAuthRow | undefined>;
  needsTotp(user: { role: string; operator_id: string | null }): boolean;
}

export interface AuthOptions {
  keys: KeyAuthenticator;
  guard: FailedKeyGuard;
  sessions: SessionAuthenticator;
  /** The site's own origin (from REDFLAG_PUBLIC_URL): the only one allowed to change state in a session. */
  origin: string;
  defaultRateLimitPerMinute: number;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function sessionPrincipal(row: SessionAuthRow, defaultRateLimit: number): Principal {
  const user = { userId: row.user_id, userRole: row.role, sessionId: row.session_id };
  if (row.company_id && row.business_name !== null) {
    return {
      role: 'company',
      keyId: null,
      user,
      companyId: row.company_id,
      businessName: row.business_name,
      rateLimitPerMinute: row.rate_limit_per_minute ?? defaultRateLimit,
    };
  }
  return {
    role: 'operator',
    keyId: null,
    user,
    operatorId: row.operator_id as string,
    name: row.operator_name ?? '',
    rateLimitPerMinute: defaultRateLimit,
  };
}

/**
 * Cross-site request forgery: SameSite=Strict already keeps the cookie off cross-site requests in
 * current browsers; a state-changing request in a session must also come from our own origin.
 */
function checkOrigin(request: FastifyRequest, origin: string, required: boolean): void {
  if (SAFE_METHODS.has(request.method)) return;
  const sent = request.headers.origin;
  if (sent === undefined && !required) return;
  if (sent !== origin) throw new AppError('FORBIDDEN', 'Cross-site request refused: the Origin header must be this site');
}

async function authenticateSession(request: FastifyRequest, reply: FastifyReply, options: AuthOptions): Promise<Principal> {
  const token = request.cookies[SESSION_COOKIE];
  if (!token) throw new AppError('SESSION_INVALID', 'Sign in first');
  const row = await options.sessions.authenticate(token);
  if (!row) {
    reply.clearCookie(SESSION_COOKIE, { path: '/' });
    throw new AppError('SESSION_INVALID', 'The session has ended; sign in again');
  }
  checkOrigin(request, options.origin, true);
  const principal = sessionPrincipal(row, options.defaultRateLimitPerMinute);
  if (request.routeOptions.config.auth === 'session') return principal;
  if (!row.totp_confirmed_at && options.sessions.needsTotp(row)) {
    throw new AppError('TOTP_ENROLMENT_REQUIRED', 'Enrol a second factor first (POST /api/v1/auth/totp)');
  }
  const role = `${principal.role}:${row.role}` as UserRole;
  if (!roleMayCall(request.method, request.routeOptions.url ?? '', role)) {
    throw new AppError('FORBIDDEN', `The ${row.role} role may not do this`);
  }
  return principal;
}

/**
 * Checks `x-api-key`, or else the session cookie, in an onRequest hook, so an unauthenticated
 * request is answered 401 before its body is read or validated (401 beats 400, and no body is
 * parsed for a stranger). The rate limiter runs after this hook and counts per key or per user.
 */
export function registerAuth(app: FastifyInstance, options: AuthOptions): void {
  const { keys, guard } = options;
  app.decorateRequest('principal', null);
  app.addHook('onRequest', async (request, reply) => {
    const { auth: required, checkOrigin: publicFormPost } = request.routeOptions.config;
    if (required === undefined) {
      if (publicFormPost) checkOrigin(request, options.origin, false);
      return;
    }
    if (request.routeOptions.config.keylessFrom?.(request.ip)) return;
    const header = request.headers[API_KEY_HEADER];
    const rawKey = Array.isArray(header) ? header[0] : header;
    if (!rawKey || SESSION_ONLY.has(required)) {
      if (!rawKey && !SESSION_ONLY.has(required) && request.cookies[SESSION_COOKIE] === undefined) {
        throw new AppError('API_KEY_MISSING', 'The x-api-key header (or a signed-in session) is required');
      }
      const principal = await authenticateSession(request, reply, options);
      if (required !== 'any' && !SESSION_ONLY.has(required) && principal.role !== required) {
        throw new AppError('FORBIDDEN', `This route is for ${required} users`);
      }
      request.principal = principal;
      return;
    }
    const outcome = await keys.authenticate(rawKey.trim());
    if (!outcome.ok) {
      // Only failures are throttled: behind a load balancer many tenants share one address, and one
      // client's wrong keys must not lock the others' valid keys out.
      if (outcome.code === 'API_KEY_INVALID') {
        guard.check(request.ip);
        guard.recordFailure(request.ip);
      }
      throw new AppError(outcome.code, outcome.message);
    }
    const { principal } = outcome;
    if (required !== 'any' && principal.role !== required) {
      throw new AppError(
        'FORBIDDEN',
        required === 'operator' ? 'This route needs an operator key' : 'This route needs a company key',
      );
    }
    request.principal = principal;
  });
}

/** The caller of a route declared `auth: 'company'`; a programming error anywhere else. */
export function companyOf(request: FastifyRequest): CompanyPrincipal {
  const { principal } = request;
  if (principal?.role !== 'company') throw new Error(`${request.routeOptions.url} is not declared auth: 'company'`);
  return principal;
}

/** The caller of a route declared `auth: 'operator'`. */
export function operatorOf(request: FastifyRequest): OperatorPrincipal {
  const { principal } = request;
  if (principal?.role !== 'operator') throw new Error(`${request.routeOptions.url} is not declared auth: 'operator'`);
  return principal;
}

/** The caller of a route declared with any `auth`. */
export function principalOf(request: FastifyRequest): Principal {
  const { principal } = request;
  if (!principal) throw new Error(`${request.routeOptions.url} declares no auth`);
  return principal;
}

/** The signed-in user of a route declared `auth: 'session'` or `auth: 'person'`. */
export function sessionUserOf(request: FastifyRequest) {
  const user = principalOf(request).user;
  if (!user) throw new Error(`${request.routeOptions.url} is not declared auth: 'session' or 'person'`);
  return user;
}

export interface RequestActor {
  keyId: string | null;
  userId: string | null;
  requestId: string;
  /** Set when a company acts (on its own objects)... */
  companyId?: string;
  /** ...or the operators (on anyone's). */
  operatorId?: string;
}

/**
 * Who acts on a request, as the services record it in the audit trail: the key, or the signed-in
 * user (then `keyId` is null), and the company or the operators they act for. Built here for the
 * report, dispute and renewal routes: a hand-built copy that forgot `userId` made every renewal from
 * the desk a 500. (Some routes still build their own narrower actor; they are candidates to move.)
 */
export function actorOf(request: FastifyRequest): RequestActor {
  const principal = principalOf(request);
  const who = { keyId: principal.keyId, userId: principal.user?.userId ?? null, requestId: String(request.id) };
  return principal.role === 'company' ? { ...who, companyId: principal.companyId } : { ...who, operatorId: principal.operatorId };
}

/** `actorOf` for a route declared `auth: 'company'`, with the company's name. */
export function companyActorOf(request: FastifyRequest) {
  const { keyId, user, companyId, businessName } = companyOf(request);
  return { keyId, userId: user?.userId ?? null, companyId, businessName, requestId: String(request.id) };
}

/** Who makes an administrative change, for the audit row written with it. */
export function changeActorOf(request: FastifyRequest): ChangeActor {
  const principal = principalOf(request);
  return {
    keyId: principal.keyId,
    userId: principal.user?.userId ?? null,
    ...(principal.role === 'operator' ? { operatorId: principal.operatorId } : {}),
    requestId: String(request.id),
  };
}
