import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { mayBeIdentifier } from './identifier-shaped.js';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * A caller's `x-request-id` is echoed when it is a plain token; anything else gets a fresh id. So
 * does a token that could be an identifier (`08031234567`, a customer's account number used as a
 * correlation id): the id is written to every log line of the request and to the audit trail,
 * where no identifier may be in clear.
 */
export function requestId(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && SAFE_ID.test(given) && !mayBeIdentifier(given) ? given : randomUUID();
}
