import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { SESSION_COOKIE } from './auth.js';
import { ErrorEnvelope } from './envelope.js';

/** The error statuses any route can answer; routes add their own (401, 404, 409 ...) in their schema. */
const COMMON_ERRORS = {
  400: 'Invalid request: field errors in data.errors',
  413: 'Request body too large',
  415: 'Unsupported content type',
  429: 'Rate limit exceeded; see Retry-After',
  500: 'Internal server error; quote data.requestId',
} as const;

export const ERROR_DESCRIPTIONS: Record<number, string> = {
  ...COMMON_ERRORS,
  401: 'API key missing or invalid',
  403: 'Key lacks the role, or the company is suspended',
  404: 'Not found',
  409: 'Not allowed in the current state',
  422: 'Idempotency key reused with a different body',
};

const errorResponseByStatus = new Map<number, object>();

/** One object a status, shared by every route: its serializer is compiled once (lazy-schemas.ts). */
function errorResponse(status: number) {
  let response = errorResponseByStatus.get(status);
  if (!response) {
    response = { ...ErrorEnvelope, description: ERROR_DESCRIPTIONS[status] ?? 'Error' };
    errorResponseByStatus.set(status, response);
  }
  return response;
}

/** Lets a route declare the extra error statuses it can answer, documented and serialised. */
export function errorResponses(...statuses: number[]) {
  return Object.fromEntries(statuses.map((s) => [s, errorResponse(s)]));
}

/**
 * Adds the common error responses to every route's schema, so the OpenAPI document lists them
 * and error bodies are serialised through the same schema as everything else; an authenticated
 * route also gets its security requirement and the 401/403 answers.
 * Must be registered before @fastify/swagger collects the routes.
 */
function addCommonErrors(route: RouteOptions): void {
  route.schema ??= {};
  if (route.schema.hide) return;
  route.schema.response ??= {};
  const response = route.schema.response as Record<string, unknown>;
  for (const status of Object.keys(COMMON_ERRORS)) {
    response[status] ??= errorResponse(Number(status));
  }
  // A route that declares `config.auth` needs a key: say so, with the answers to a missing or wrong one.
  if (route.config?.auth) {
    // Either works: an API key, or the session cookie of a user whose role allows the route (src/http/roles.ts).
    (route.schema as { security?: unknown }).security ??= [{ apiKey: [] }, { session: [] }];
    response[401] ??= errorResponse(401);
    response[403] ??= errorResponse(403);
  } else {
    // Said outright, so a generated client knows the route needs neither a key nor a session.
    (route.schema as { security?: unknown }).security ??= [];
  }
  // A generated client names its methods after these; a route may choose its own, or gets one from its method and path.
  (route.schema as { operationId?: string }).operationId ??= operationIdFor([route.method].flat()[0] as string, route.url);
}

/** `GET /api/v1/external/reports/:id/decode` → `getExternalReportsByIdDecode`: stable, unique per method and path. */
export function operationIdFor(method: string, url: string): string {
  const words = url
    .replace(/^\/api\/v1\//, '/')
    .split('/')
    .filter(Boolean)
    .map((part) => (part.startsWith(':') ? `by-${part.slice(1)}` : part))
    .flatMap((part) => part.split(/[^A-Za-z0-9]+/))
    .filter(Boolean);
  return method.toLowerCase() + words.map((w) => w[0]?.toUpperCase() + w.slice(1)).join('');
}

/**
 * A query parameter the service fills in when it is left out (`page`, `limit`: their schema has a
 * `default`) is not required, whatever the schema's own `required` list says: TypeBox lists every
 * property that is not `Optional`, so the document told generated clients and validating proxies
 * to insist on what the service never asks for.
 */
function queryDefaultsOptional<T extends { paths?: Record<string, unknown> }>(document: T): T {
  for (const operations of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(operations as Record<string, { parameters?: unknown[] }>)) {
      for (const parameter of operation?.parameters ?? []) {
        const p = parameter as { in?: string; required?: boolean; schema?: { default?: unknown } };
        if (p.in === 'query' && p.required && p.schema?.default !== undefined) p.required = false;
      }
    }
  }
  return document;
}

export interface RouteSummary {
  method: string;
  url: string;
  documented: boolean;
  /** Who may call it (`config.auth`); undefined for a public route. */
  auth: string | undefined;
}

/**
 * Returns the list of routes as they are registered (filled once the app is ready), so a test can
 * check that every documented route is in the OpenAPI document.
 */
export async function registerOpenApi(app: FastifyInstance, publicUrl: string): Promise<RouteSummary[]> {
  const routes: RouteSummary[] = [];
  app.addHook('onRoute', (route) => {
    addCommonErrors(route);
    for (const method of [route.method].flat()) {
      if (method !== 'HEAD') routes.push({ method, url: route.url, documented: !route.schema?.hide, auth: route.config?.auth });
    }
  });
  await app.register(swagger, {
    transformObject: (document) => queryDefaultsOptional('openapiObject' in document ? document.openapiObject : {}),
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Redflag',
        description: 'A shared registry of suspicious-activity (fraud) reports. Every JSON body is { success, message, data }.',
        version: '1.0.0',
      },
      servers: [{ url: publicUrl }],
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
          session: {
            type: 'apiKey',
            in: 'cookie',
            name: SESSION_COOKIE,
            description:
              'Set by POST /api/v1/auth/sign-in (HttpOnly, SameSite=Strict). A state-changing request in a session must send this site as its Origin.',
          },
        },
      },
    },
  });
  // Its own Content-Security-Policy on its pages: the service's default allows nothing to load.
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  return routes;
}
