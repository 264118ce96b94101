import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { mayBeIdentifier } from './identifier-shaped.js';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A tracing id (W3C trace ids, span ids, hex digests): parts of hex digits, with letters among them. */
const HEX_PARTS = /^[0-9a-f]+(?:[-_.:][0-9a-f]+)*$/i;
const isHexTrace = (id: string) => id.length >= 16 && HEX_PARTS.test(id) && /[a-f]/i.test(id);

/**
 * A caller's `x-request-id` is echoed when it is a plain token; anything else gets a fresh id. So
 * does a token that could be an identifier (ten digits or more in a row once separators are gone,
 * or an @: `08031234567`, a customer's account number used as a correlation id): the id is written
 * to every log line of the request and to the audit trail, where no identifier may be in clear.
 * Hex tracing ids are kept whatever digits they hold.
 */
export function requestId(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  if (typeof given !== 'string' || !SAFE_ID.test(given)) return randomUUID();
  return isHexTrace(given) || !mayBeIdentifier(given, 10) ? given : randomUUID();
}
