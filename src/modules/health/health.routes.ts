import { Type } from 'typebox';
import { Envelope, ok } from '../../http/envelope.js';
import { AppError } from '../../http/errors.js';
import { errorResponses } from '../../http/openapi.js';
import type { RoutesPlugin } from '../../http/types.js';

export interface ReadinessCheck {
  name: string;
  /** Resolves with a short status; rejects or resolves `ready: false` when the dependency is down. */
  check(): Promise<{ ready: boolean; detail?: string }>;
}

const Check = Type.Object({ name: Type.String(), ready: Type.Boolean(), detail: Type.Optional(Type.String()) });

export const healthRoutes: RoutesPlugin<{ checks: ReadinessCheck[] }> = async (app, { checks }) => {
  app.get(
    '/healthz',
    {
      schema: {
        tags: ['operations'],
        summary: 'Liveness: the process is up',
        response: { 200: Envelope(Type.Object({ status: Type.String() })) },
      },
    },
    async () => ok({ status: 'ok' }, 'OK'),
  );

  app.get(
    '/readyz',
    {
      schema: {
        tags: ['operations'],
        summary: 'Readiness: the database (and other dependencies) answer',
        response: {
          200: Envelope(Type.Object({ status: Type.String(), checks: Type.Array(Check) })),
          ...errorResponses(503),
        },
      },
    },
    async (request) => {
      const results = await Promise.all(
        checks.map(async ({ name, check }) => {
          try {
            return { name, ...(await check()) };
          } catch (error) {
            request.log.warn({ err: error, check: name }, 'readiness check failed');
            return { name, ready: false, detail: 'unreachable' };
          }
        }),
      );
      const down = results.filter((r) => !r.ready).map((r) => r.name);
      if (down.length > 0) throw new AppError('UNAVAILABLE', `Not ready: ${down.join(', ')}`);
      return ok({ status: 'ready', checks: results }, 'Ready');
    },
  );
};
