import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errorBody, errorHandler } from './envelope.js';
import { AppError, ERROR_STATUS } from './errors.js';

/**
 * The answers Fastify and Node give before a route runs — a path that is not valid percent-encoding,
 * a path parameter past the router's limit, malformed HTTP, the service closing — in the envelope
 * with a request id, like every other error (by default each writes a body of its own, without one).
 */

/** Fastify's `frameworkErrors`: the URL could not be routed at all. */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  // These bypass the onRequest hooks, which set these headers for every other answer.
  reply.header('x-request-id', request.id);
  reply.headers(request.server.securityHeaders ?? {});
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH')
    return errorHandler(new AppError('URI_TOO_LONG', 'A path parameter is too long'), request, reply);
  if (error.code === 'FST_ERR_BAD_URL')
    return errorHandler(
      AppError.validation([
        {
          field: 'path',
          message: 'is not valid percent-encoding (a % must be followed by two hex digits, and the bytes must be UTF-8)',
        },
      ]),
      request,
      reply,
    );
  return errorHandler(error, request, reply);
}

/** Node's own failures, by its error code; anything else it cannot parse is a plain 400. */
function clientFailure(error: NodeJS.ErrnoException): AppError {
  if (error.code === 'HPE_HEADER_OVERFLOW') return new AppError('HEADERS_TOO_LARGE', 'The request headers are too large');
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return new AppError('REQUEST_TIMEOUT', 'The request took too long to arrive');
  if (error.code === 'HPE_URI_TOO_LONG') return new AppError('URI_TOO_LONG', 'The request line is too long');
  return new AppError('BAD_REQUEST', 'The request is not valid HTTP');
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  414: 'URI Too Long',
  431: 'Request Header Fields Too Large',
};

/**
 * Node's `clientError` (Fastify's `clientErrorHandler`): the request never became a request, so the
 * envelope is written on the socket itself, as Node's default handler would write its bare 400.
 */
export function clientErrorHandler(this: FastifyInstance, error: NodeJS.ErrnoException, socket: Socket) {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const appError = clientFailure(error);
  const requestId = randomUUID();
  // Never the error itself: Node attaches the raw bytes read (`rawPacket`: the request line with its
  // path, the API key and the session cookie), which the log's redaction paths do not reach.
  const { code, bytesParsed } = error as NodeJS.ErrnoException & { bytesParsed?: number };
  this.log.debug({ code, bytesParsed, requestId }, 'malformed request');
  // Like Node's own handler: only when nothing of a response has been written on this connection yet.
  const pending = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !pending?.headersSent) {
    const body = JSON.stringify({ success: false, message: appError.message, data: { code: appError.code, requestId } });
    // The headers every other answer carries too (no-store, nosniff, ...).
    const security = Object.entries(this.securityHeaders ?? {})
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.write(
      `HTTP/1.1 ${appError.status} ${REASONS[appError.status] ?? 'Bad Request'}\r\n` +
        'content-type: application/json; charset=utf-8\r\n' +
        `content-length: ${Buffer.byteLength(body)}\r\n` +
        `x-request-id: ${requestId}\r\n${security}` +
        `connection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

/** How long a client should wait before retrying elsewhere while this instance shuts down. */
const CLOSING_RETRY_AFTER_S = 1;

/**
 * While the service closes (SIGTERM), a request that still arrives on a kept-alive connection gets
 * 503 UNAVAILABLE in the envelope, with Retry-After, and the connection is closed. Fastify's own
 * 503 (`return503OnClosing`) is turned off in app.ts for this one.
 */
export function answerUnavailableWhileClosing(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // A callback hook: on every request but the last few it only reads a flag. Answering without
  // calling `done` ends the request here, as Fastify's hooks allow.
  app.addHook('onRequest', (request, reply, done) => {
    if (!closing) {
      done();
      return;
    }
    const error = new AppError('UNAVAILABLE', 'The service is shutting down; retry', { retryAfter: CLOSING_RETRY_AFTER_S });
    reply.header('connection', 'close');
    reply.header('retry-after', String(CLOSING_RETRY_AFTER_S));
    reply.code(ERROR_STATUS.UNAVAILABLE).send(errorBody(request, error));
  });
}
