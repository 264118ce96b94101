import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { CompanyPrincipal, KeyAuthenticator, OperatorPrincipal, Principal } from '../modules/keys/keys.authenticator.js';
import { AppError } from './errors.js';
import type { FailedKeyGuard } from './failed-key-guard.js';

export type { CompanyPrincipal, OperatorPrincipal, Principal };

/** Who may call a route: a company key, an operator key, or either. A route without `auth` is public. */
export type AuthRequirement = 'company' | 'operator' | 'any';

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller, set before anything else runs on an authenticated route; null on public routes. */
    principal: Principal | null;
  }
  interface FastifyContextConfig {
    auth?: AuthRequirement;
  }
}

export const API_KEY_HEADER = 'x-api-key';

/**
 * Checks `x-api-key` in an onRequest hook, so an unauthenticated request is answered 401 before its
 * body is read or validated (401 beats 400, and no body is parsed for a stranger). The rate limiter
 * runs after this hook (route-level hooks come last) and counts per key.
 */
export function registerAuth(app: FastifyInstance, authenticator: KeyAuthenticator, guard: FailedKeyGuard): void {
  app.decorateRequest('principal', null);
  app.addHook('onRequest', async (request) => {
    const required = request.routeOptions.config.auth;
    if (required === undefined) return;
    const header = request.headers[API_KEY_HEADER];
    const rawKey = Array.isArray(header) ? header[0] : header;
    if (!rawKey) throw new AppError('API_KEY_MISSING', 'The x-api-key header is required');
    guard.check(request.ip);
    const outcome = await authenticator.authenticate(rawKey.trim());
    if (!outcome.ok) {
      if (outcome.code === 'API_KEY_INVALID') guard.recordFailure(request.ip);
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
