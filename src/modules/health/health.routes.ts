import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { Envelope, errorBody, ok } from '../../http/envelope.js';
import { AppError } from '../../http/errors.js';
import { errorResponses } from '../../http/openapi.js';
import type { RoutesPlugin } from '../../http/types.js';

export interface ReadinessCheck {
  name: string;
  /** Resolves with a short status; rejects or resolves `ready: false` when the dependency is down. */
  check(): Promise<{ ready: boolean; detail?: string }>;
}

const Check = Type.Object({ name: Type.String(), ready: Type.Boolean(), detail: Type.Optional(Type.String()) });

/** A check that has not answered within `timeoutMs` counts as down (a partition must not hang /readyz). */
function withinTime<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

export const healthRoutes: RoutesPlugin<{ checks: ReadinessCheck[]; timeoutMs: number }> = async (app, { checks, timeoutMs }) => {
  // Orchestrators ask every few seconds: a dependency going down and coming back is logged once each way.
  const wasReady = new Map<string, boolean>();
  const noteState = (name: string, ready: boolean, error?: unknown) => {
    const before = wasReady.get(name) ?? true;
    wasReady.set(name, ready);
    if (before && !ready) {
      app.log.warn(
        { check: name, err: error instanceof Error ? { message: error.message } : undefined },
        'readiness check failing',
      );
    } else if (!before && ready) {
      app.log.info({ check: name }, 'readiness check passing again');
    }
  };

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
    async (request, reply) => {
      const results = await Promise.all(
        checks.map(async ({ name, check }) => {
          try {
            const result = { name, ...(await withinTime(check(), timeoutMs)) };
            noteState(name, result.ready);
            return result;
          } catch (error) {
            noteState(name, false, error);
            return { name, ready: false, detail: 'unreachable' };
          }
        }),
      );
      const down = results.filter((r) => !r.ready).map((r) => r.name);
      if (down.length > 0) {
        // Answered here rather than thrown: the error handler would log every probe of an outage.
        const error = new AppError('UNAVAILABLE', `Not ready: ${down.join(', ')}`, { retryAfter: 1 });
        return (reply as FastifyReply).code(503).header('retry-after', '1').send(errorBody(request, error));
      }
      return ok({ status: 'ready', checks: results }, 'Ready');
    },
  );
};
