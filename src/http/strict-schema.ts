import type { TSchema } from 'typebox';

/**
 * A copy of a response schema in which every object with named properties accepts no others,
 * all the way down. Fastify's serializer drops unknown properties, but a body built elsewhere
 * (search's JSON is written by PostgreSQL) passes through untouched: held to this copy in the tests,
 * an extra column or an identifier's stray `clearValue` is caught at whatever depth it appears.
 * Maps (`Type.Record`, patternProperties) keep their own rule.
 */
export function strictSchema<T extends TSchema>(schema: T): T {
  return tighten(schema) as T;
}

function tighten(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(tighten);
  if (node === null || typeof node !== 'object') return node;
  const copy: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(node)) copy[name] = tighten(value);
  if (copy.properties !== undefined && copy.additionalProperties === undefined && copy.patternProperties === undefined) {
    copy.additionalProperties = false;
  }
  return copy;
}
