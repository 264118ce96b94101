import type { FastifyInstance } from 'fastify';
import { AppError, type FieldError } from './errors.js';

/**
 * A query value that is not valid percent-encoding (`?page=%zz`, a cut-off `%E0%A4%A`) is taken
 * literally by the query parser, and then failed its schema for a reason the caller did not give
 * ("must be an integer"). Said as it is, as a broken path already is (framework-errors.ts). Only
 * the parameters the route reads: an undeclared one is ignored, whatever it holds (API.md).
 */
export function refuseBrokenQueryEncoding(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    const at = request.url.indexOf('?');
    if (at === -1) return;
    const properties = (request.routeOptions.schema?.querystring as { properties?: Record<string, unknown> } | undefined)
      ?.properties;
    if (!properties) return;
    const errors: FieldError[] = [];
    for (const pair of request.url.slice(at + 1).split('&')) {
      const [rawName = '', rawValue = ''] = splitOnce(pair, '=');
      const name = decoded(rawName);
      if (name === undefined || !Object.hasOwn(properties, name) || decoded(rawValue) !== undefined) continue;
      if (!errors.some((e) => e.field === name)) {
        errors.push({
          field: name,
          message: 'is not valid percent-encoding (a % must be followed by two hex digits, and the bytes must be UTF-8)',
        });
      }
    }
    if (errors.length > 0) throw AppError.validation(errors);
  });
}

/**
 * A route that reads no body (publish, relist, revoke, …) refuses one that says something: a
 * client sending `{ "reason": "…" }` to one would believe it was recorded. No body, `{}`, `[]` and
 * `null` are no body (HTTP clients send one of them with a POST that has no data: PHP's
 * json_encode([]) is `[]`).
 */
export function refuseBodiesNoRouteReads(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    const body = request.body;
    if (body === undefined || body === null) return;
    // Not found (answered by its own handler), or a route that declares what its body holds.
    if (request.routeOptions.url === undefined || request.routeOptions.schema?.body !== undefined) return;
    if (typeof body === 'object' && Object.keys(body).length === 0) return;
    throw AppError.validation([{ field: 'body', message: 'must be empty: this request takes no body (send none, or {})' }]);
  });
}

function splitOnce(text: string, separator: string): [string, string] {
  const at = text.indexOf(separator);
  return at === -1 ? [text, ''] : [text.slice(0, at), text.slice(at + 1)];
}

function decoded(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}
