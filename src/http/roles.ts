import type { CompanyUserRole, OperatorUserRole } from '../db/schema.js';

/** A user's role with the side it belongs to: the names the table below uses. */
export type UserRole = `company:${CompanyUserRole}` | `operator:${OperatorUserRole}`;

export const COMPANY_ROLES: readonly CompanyUserRole[] = ['admin', 'analyst', 'viewer'];
export const OPERATOR_ROLES: readonly OperatorUserRole[] = ['moderator', 'admin'];

// Company roles nest: a viewer searches; an analyst also files and manages the company's reports;
// an admin also manages the company's users and keys. Operators: a moderator moderates; an admin
// also administers companies, keys and users.
const VIEWER: readonly UserRole[] = ['company:viewer', 'company:analyst', 'company:admin'];
const ANALYST: readonly UserRole[] = ['company:analyst', 'company:admin'];
const COMPANY_ADMIN: readonly UserRole[] = ['company:admin'];
const MODERATOR: readonly UserRole[] = ['operator:moderator', 'operator:admin'];
const OPERATOR_ADMIN: readonly UserRole[] = ['operator:admin'];
const SUBMISSIONS = '/api/v1/external/reports/submissions';

/**
 * THE role check: which users' sessions may call each authenticated route, by method and URL as
 * registered. An API key is not in this table: a company key acts for its whole company and an
 * operator key for the operators (the route's `auth` says which kind). A route missing here refuses
 * every session (403) and fails test/roles.test.ts, which calls every route with every role.
 */
export const ROUTE_ROLES: Readonly<Record<string, readonly UserRole[]>> = {
  'POST /reports/search': [...VIEWER, ...MODERATOR],
  'POST /api/v1/external/reports/search': [...VIEWER, ...MODERATOR],
  'POST /api/v1/external/reports/search/batch': [...VIEWER, ...MODERATOR],
  'GET /api/v1/auth/whoami': [...VIEWER, ...MODERATOR],
  // A person's own alerts (decision 0140): anyone may read them or turn them off; the service lets
  // only a member's analysts and administrators turn them on (a role can change while they are on).
  'GET /api/v1/auth/me/watchlist-alerts': [...VIEWER, ...MODERATOR],
  'PUT /api/v1/auth/me/watchlist-alerts': [...VIEWER, ...MODERATOR],

  'POST /api/v1/external/reports': ANALYST,
  [`GET ${SUBMISSIONS}`]: ANALYST,
  [`GET ${SUBMISSIONS}/:id`]: ANALYST,
  [`GET ${SUBMISSIONS}/:id/decode`]: ANALYST,
  [`PATCH ${SUBMISSIONS}/:id`]: ANALYST,
  [`POST ${SUBMISSIONS}/:id/publish`]: ANALYST,
  [`POST ${SUBMISSIONS}/:id/exit`]: [...ANALYST, ...MODERATOR],
  [`POST ${SUBMISSIONS}/:id/relist`]: [...ANALYST, ...MODERATOR],
  'POST /api/v1/external/uploads': ANALYST,
  'GET /api/v1/external/uploads/:id': ANALYST,

  'GET /api/v1/external/audit': COMPANY_ADMIN,
  'GET /api/v1/external/keys': COMPANY_ADMIN,
  'POST /api/v1/external/keys': COMPANY_ADMIN,
  'POST /api/v1/external/keys/:keyId/rotate': COMPANY_ADMIN,
  'POST /api/v1/external/keys/:keyId/revoke': COMPANY_ADMIN,
  'GET /api/v1/external/users': COMPANY_ADMIN,
  'POST /api/v1/external/users': COMPANY_ADMIN,
  'PATCH /api/v1/external/users/:userId': COMPANY_ADMIN,
  'DELETE /api/v1/external/users/:userId': COMPANY_ADMIN,
  'POST /api/v1/external/users/:userId/password-link': COMPANY_ADMIN,
  'POST /api/v1/external/users/:userId/second-factor/reset': COMPANY_ADMIN,

  'GET /api/v1/admin/public-reports': MODERATOR,
  'GET /api/v1/admin/public-reports/:id': MODERATOR,
  'POST /api/v1/admin/public-reports/:id/publish': MODERATOR,
  'POST /api/v1/admin/public-reports/:id/reject': MODERATOR,
  'GET /api/v1/admin/review-requests': MODERATOR,
  'GET /api/v1/admin/review-requests/:id': MODERATOR,
  'POST /api/v1/admin/review-requests/:id/close': MODERATOR,

  // Fairness (issue 15): analysts act on disputes for their company; moderators decide escalations.
  [`POST ${SUBMISSIONS}/:id/renew`]: ANALYST,
  'POST /api/v1/external/disputes': [...ANALYST, ...MODERATOR],
  'GET /api/v1/external/disputes': ANALYST,
  'GET /api/v1/external/disputes/:id': [...ANALYST, ...MODERATOR],
  'POST /api/v1/external/disputes/:id/uphold': ANALYST,
  'POST /api/v1/external/disputes/:id/exit': ANALYST,
  'POST /api/v1/external/disputes/:id/escalate': [...ANALYST, ...MODERATOR],
  'GET /api/v1/admin/disputes': MODERATOR,
  'GET /api/v1/admin/reports/:id': MODERATOR,
  'POST /api/v1/admin/disputes/:id/decide': MODERATOR,
  'POST /api/v1/admin/safelist': OPERATOR_ADMIN,
  'GET /api/v1/admin/safelist': OPERATOR_ADMIN,
  'DELETE /api/v1/admin/safelist/:id': OPERATOR_ADMIN,

  // Watchlists and webhooks (issue 14): analysts keep the watchlist; admins own the endpoints and secrets.
  'POST /api/v1/external/watchlist': ANALYST,
  'GET /api/v1/external/watchlist': ANALYST,
  'GET /api/v1/external/watchlist/count': ANALYST,
  'GET /api/v1/external/watchlist/matches': ANALYST,
  'GET /api/v1/external/public-reports': ANALYST,
  'GET /api/v1/external/public-reports/:id': ANALYST,
  'DELETE /api/v1/external/watchlist/:id': ANALYST,
  'POST /api/v1/external/watchlist/imports': ANALYST,
  'POST /api/v1/external/watchlist/imports/:id/file': ANALYST,
  'GET /api/v1/external/watchlist/imports/:id': ANALYST,
  'GET /api/v1/external/watchlist/imports/:id/errors': ANALYST,
  'POST /api/v1/external/webhooks': COMPANY_ADMIN,
  'GET /api/v1/external/webhooks': COMPANY_ADMIN,
  'GET /api/v1/external/webhooks/:id': COMPANY_ADMIN,
  'PATCH /api/v1/external/webhooks/:id': COMPANY_ADMIN,
  'DELETE /api/v1/external/webhooks/:id': COMPANY_ADMIN,
  'POST /api/v1/external/webhooks/:id/rotate-secret': COMPANY_ADMIN,
  'GET /api/v1/external/webhooks/:id/deliveries': COMPANY_ADMIN,

  // Screening a customer book (issue 16): analysts screen, as they search.
  'POST /api/v1/external/screenings': ANALYST,
  'GET /api/v1/external/screenings': ANALYST,
  'GET /api/v1/external/screenings/:id': ANALYST,
  'GET /api/v1/external/screenings/:id/matches.csv': ANALYST,
  'GET /api/v1/external/screenings/:id/errors.csv': ANALYST,
  'POST /api/v1/external/webhooks/:id/deliveries/:deliveryId/redeliver': COMPANY_ADMIN,
  'PUT /api/v1/admin/companies/:companyId/bank': OPERATOR_ADMIN,

  // Operations: what the service is doing tells outsiders its traffic (issue 11).
  'GET /metrics': OPERATOR_ADMIN,

  'POST /api/v1/admin/companies': OPERATOR_ADMIN,
  'GET /api/v1/admin/companies': OPERATOR_ADMIN,
  'GET /api/v1/admin/companies/:companyId': OPERATOR_ADMIN,
  'POST /api/v1/admin/companies/:companyId/suspend': OPERATOR_ADMIN,
  'POST /api/v1/admin/companies/:companyId/activate': OPERATOR_ADMIN,
  'POST /api/v1/admin/companies/:companyId/keys': OPERATOR_ADMIN,
  'GET /api/v1/admin/companies/:companyId/keys': OPERATOR_ADMIN,
  'GET /api/v1/admin/keys/:keyId': OPERATOR_ADMIN,
  'POST /api/v1/admin/keys/:keyId/revoke': OPERATOR_ADMIN,
  'POST /api/v1/admin/keys/:keyId/rotate': OPERATOR_ADMIN,
  'GET /api/v1/admin/users': OPERATOR_ADMIN,
  'POST /api/v1/admin/users': OPERATOR_ADMIN,
  'POST /api/v1/admin/users/:userId/suspend': OPERATOR_ADMIN,
  'POST /api/v1/admin/users/:userId/activate': OPERATOR_ADMIN,
  'POST /api/v1/admin/users/:userId/password-link': OPERATOR_ADMIN,
  'POST /api/v1/admin/users/:userId/second-factor/reset': OPERATOR_ADMIN,
};

export function roleMayCall(method: string, url: string, role: UserRole): boolean {
  return ROUTE_ROLES[`${method} ${url}`]?.includes(role) ?? false;
}
