import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { principalOf, sessionUserOf } from '../../http/auth.js';
import { Envelope, ok } from '../../http/envelope.js';
import { errorResponses } from '../../http/openapi.js';
import { StringEnum } from '../../http/schema-helpers.js';
import type { RoutesPlugin } from '../../http/types.js';
import { ALERTS_EVERY, type AlertsPerson, type WatchlistAlerts } from './watchlist-alerts.service.js';

const PATH = '/api/v1/auth/me/watchlist-alerts';

const AlertsState = Type.Object({
  on: Type.Boolean({ description: 'Whether you are e-mailed what happened to the customers your member watches' }),
  available: Type.Boolean({
    description: 'Whether you may be: an analyst or administrator of a member, on a service that sends e-mail (REDFLAG_SMTP_URL)',
  }),
  every: StringEnum(ALERTS_EVERY, {
    description:
      '`quarter_hour`: at most one e-mail every 15 minutes, as reports come; `day`: one e-mail a day, at 08:00 in Lagos, of all since the last',
  }),
});
const AlertsResponse = Envelope(Type.Object({ watchlistAlerts: AlertsState }));
const AlertsBody = Type.Object(
  {
    on: Type.Boolean({ description: 'true to be e-mailed from now on, false to stop' }),
    every: Type.Optional(
      StringEnum(ALERTS_EVERY, { description: 'How often (kept when left out, and while the alerts are off)' }),
    ),
  },
  { additionalProperties: false },
);

/** The person signed in, as the alerts know them: their own setting, never another's. */
function personOf(request: FastifyRequest): AlertsPerson {
  const principal = principalOf(request);
  const user = sessionUserOf(request);
  return { userId: user.userId, role: user.userRole, companyId: principal.role === 'company' ? principal.companyId : null };
}

/** A person's own e-mail alerts about their member's watched customers (decision 0140). */
export const watchlistAlertsRoutes: RoutesPlugin<{ alerts: WatchlistAlerts }> = async (app, { alerts }) => {
  const tags = ['auth'];
  const security = [{ session: [] }];

  app.get(
    PATH,
    {
      config: { auth: 'person' },
      schema: { tags, summary: 'Your e-mail alerts about watched customers', security, response: { 200: AlertsResponse } },
    },
    async (request) => ok({ watchlistAlerts: await alerts.state(personOf(request)) }, 'Watchlist alerts'),
  );

  app.put(
    PATH,
    {
      config: { auth: 'person' },
      schema: {
        tags,
        summary: 'Turn your e-mail alerts about watched customers on or off',
        description:
          'On: at most one e-mail a quarter of an hour (or, with `every: day`, one a day at 08:00 in Lagos), when reports newly name customers your member watches, or leave the list or come back to it; counts only, no names or values. Told from now on: what came before is on the Watchlist page. 403 for a viewer or an operator (they watch no customers), 409 when the service sends no e-mail.',
        security,
        body: AlertsBody,
        response: { 200: AlertsResponse, ...errorResponses(400, 403, 409) },
      },
    },
    async (request) => {
      const state = await alerts.set(personOf(request), request.body.on, request.body.every);
      return ok({ watchlistAlerts: state }, state.on ? 'You will be e-mailed' : 'No more e-mails');
    },
  );
};
