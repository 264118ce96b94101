import type { FastifyRequest } from 'fastify';
import pino, { type DestinationStream } from 'pino';
import type { Config } from '../config.js';
import { mayBeIdentifier } from './identifier-shaped.js';

/** Log paths that may carry secrets; pino replaces them before a line is written. */
export const REDACTED_LOG_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'headers["x-api-key"]',
  'apiKey',
  '*.apiKey',
  'res.headers["set-cookie"]',
  'password',
  '*.password',
  'token',
  '*.token',
];

/**
 * A path as logged: a segment that could be an identifier (six digits or more in a row — a phone,
 * BVN, NIN or account number — or an e-mail address) is masked. No route takes one in its path,
 * but an integrator who puts one there by mistake (or calls a route that does not exist with one)
 * must not have it written to the log. Ids (uuids) are kept: they are what a log is read by.
 */
function pathForLog(path: string): string {
  return path
    .split('/')
    .map((segment) => (mayBeIdentifier(segment) ? '[masked]' : segment))
    .join('/');
}

/**
 * A request as logged: the path without its query string, because a signed download link's
 * signature there is as good as a password for 15 minutes, and with what could be an identifier masked.
 */
function requestForLog(request: FastifyRequest) {
  return {
    method: request.method,
    url: pathForLog(request.url.split('?')[0] ?? ''),
    host: request.host,
    remoteAddress: request.ip,
  };
}

export function createLogger(config: Pick<Config, 'logLevel'>, stream?: DestinationStream) {
  return pino(
    {
      level: config.logLevel,
      redact: { paths: REDACTED_LOG_PATHS, censor: '[redacted]' },
      serializers: { req: requestForLog as (request: unknown) => unknown },
    },
    stream ?? pino.destination({ sync: false }),
  );
}
