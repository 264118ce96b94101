import type { FastifyInstance } from 'fastify';
import { AppError } from './errors.js';

/**
 * `?limit=10&limit=20` arrives as an array, and a parameter that takes one value then failed its
 * schema as "must be an integer", which the caller had given. Said as it is: given more than once.
 * A parameter whose schema takes a list is left alone.
 */
export function refuseRepeatedQueryParameters(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    const query = request.query;
    if (typeof query !== 'object' || query === null) return;
    const schema = request.routeOptions.schema?.querystring as { properties?: Record<string, { type?: unknown }> } | undefined;
    const properties = schema?.properties;
    if (!properties) return;
    const repeated = Object.entries(query as Record<string, unknown>).filter(
      ([name, value]) => Array.isArray(value) && properties[name] !== undefined && properties[name].type !== 'array',
    );
    if (repeated.length > 0) {
      throw AppError.validation(repeated.map(([name]) => ({ field: name, message: 'is given more than once; give it once' })));
    }
  });
}
