import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { type Static, type TSchema, Type } from 'typebox';
import { SealedValueError } from '../crypto/errors.js';
import { DISK_FULL_SQLSTATE } from '../db/disk-reserve.js';
import { hasSqlState, isDatabaseUnavailable, isStalePreparedStatement } from '../db/unavailable.js';
import { AppError, type ErrorCode, type FieldError } from './errors.js';

/** What a client is told to wait before retrying while the database is unreachable. */
export const DATABASE_RETRY_AFTER_SECONDS = 2;

/** `{ success, message, data }` with `data` described by `data`. */
export function Envelope<T extends TSchema>(data: T) {
  return Type.Object({ success: Type.Boolean(), message: Type.String(), data });
}

/** A body with thousands of bad values must not answer with megabytes of errors: the first 20 and the count. */
export const MAX_LISTED_ERRORS = 20;

export const ErrorEnvelope = Type.Object(
  {
    success: Type.Boolean(),
    message: Type.String(),
    data: Type.Object({
      code: Type.String(),
      requestId: Type.String(),
      errors: Type.Optional(
        Type.Array(Type.Object({ field: Type.String(), message: Type.String() }), { maxItems: MAX_LISTED_ERRORS }),
      ),
      errorCount: Type.Optional(Type.Integer({ description: 'How many field errors there were; `errors` lists the first 20' })),
      retryAfter: Type.Optional(Type.Integer()),
      members: Type.Optional(
        Type.Array(Type.Object({ memberId: Type.String({ format: 'uuid' }), name: Type.String() }), {
          description:
            'MEMBER_CHOICE_REQUIRED: the members whose account the password opened; send one as memberId. TOTP_REQUIRED: the members whose account the password opens without a code (the others are not named until a code fits); send one as memberId, or send the code',
        }),
      ),
    }),
  },
  { $id: 'ErrorEnvelope', description: 'Every error: the machine code, the request id to quote, and field errors for a 400' },
);

export type ErrorBody = Static<typeof ErrorEnvelope>;

export function ok<T>(data: T, message: string) {
  return { success: true as const, message, data };
}

export const ROUTE_NOT_FOUND = { success: false, message: 'Route not found', data: null };

interface AjvError {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

// What a person can act on, with an example, instead of a format's or a pattern's name.
const FORMAT_IN_WORDS: Record<string, string> = {
  'date-time': 'must be a date and time such as 2026-11-22T10:00:00Z',
  uuid: 'must be an id such as 3f0c2a1e-8b7d-4c5e-9a10-2b3c4d5e6f70',
};
const PATTERN_IN_WORDS: Record<string, string> = {
  '\\S': 'must not be only spaces',
  '^[A-Z]{3}$': 'must be a three-letter currency code in capitals, such as NGN',
};

function describe(error: AjvError): FieldError {
  const base = error.instancePath.replace(/^\//, '');
  const join = (name: unknown) => (base ? `${base}/${String(name)}` : String(name));
  const p = error.params;
  switch (error.keyword) {
    case 'required':
      return { field: join(p.missingProperty), message: 'is required' };
    case 'additionalProperties':
      return { field: join(p.additionalProperty), message: 'is not an accepted field' };
    case 'minLength':
      return { field: base, message: p.limit === 1 ? 'must not be empty' : `must be at least ${p.limit} characters` };
    case 'maxLength':
      return { field: base, message: `must be at most ${p.limit} characters` };
    case 'minItems':
      return { field: base, message: `must have at least ${p.limit} item${p.limit === 1 ? '' : 's'}` };
    case 'maxItems':
      return { field: base, message: `must have at most ${p.limit} items` };
    case 'uniqueItems':
      return { field: base, message: 'must not list the same value twice' };
    case 'minProperties':
      return { field: base, message: p.limit === 1 ? 'must change at least one field' : `must have at least ${p.limit} fields` };
    case 'enum':
      return { field: base, message: `must be one of: ${(p.allowedValues as unknown[]).join(', ')}` };
    case 'type':
      return { field: base, message: `must be ${article(String(p.type))}` };
    case 'format':
      return { field: base, message: FORMAT_IN_WORDS[String(p.format)] ?? `must be a valid ${p.format}` };
    case 'minimum':
      return { field: base, message: `must be at least ${p.limit}` };
    case 'maximum':
      return { field: base, message: `must be at most ${p.limit}` };
    case 'pattern':
      return { field: base, message: PATTERN_IN_WORDS[String(p.pattern)] ?? 'is not in the expected form' };
    default:
      return { field: base, message: error.message ?? 'is invalid' };
  }
}

function article(type: string): string {
  const named = type.split(',').map((t) => (t === 'integer' || t === 'object' || t === 'array' ? `an ${t}` : `a ${t}`));
  return named.join(' or ');
}

/** A failed schema validation's errors, each naming its field in words (once each). */
export function schemaFieldErrors(
  error: Pick<FastifyError, 'validation'> & { validationContext?: string | undefined },
): FieldError[] {
  const seen = new Set<string>();
  // The whole body (or query) has no field name of its own: it is named as routes without a body
  // name it, `body` (or `query`).
  const whole = error.validationContext === 'querystring' ? 'query' : (error.validationContext ?? 'body');
  return ((error.validation ?? []) as AjvError[])
    .map(describe)
    .map((e) => (e.field === '' ? { ...e, field: whole } : e))
    .filter((e) => {
      const key = `${e.field}\u0000${e.message}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
}

/** Fastify's own failures, mapped onto our codes. */
function toAppError(error: FastifyError, request: FastifyRequest): AppError | undefined {
  if (error instanceof AppError) return error;
  if (error.validation) return AppError.validation(schemaFieldErrors(error));
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('MALFORMED_JSON', 'The request body is not valid JSON');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('PAYLOAD_TOO_LARGE', 'The request body is too large');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      // An upload route takes a file, not JSON: say what it does take.
      return new AppError(
        'UNSUPPORTED_MEDIA_TYPE',
        (request.routeOptions.schema as { consumes?: string[] } | undefined)?.consumes?.includes('multipart/form-data')
          ? 'Unsupported content type; send the file as multipart/form-data, in the field "file"'
          : 'Unsupported content type; send application/json',
      );
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('VALIDATION_FAILED', 'The Content-Length header does not match the body');
  }
  if (error instanceof SyntaxError && error.statusCode === 400) {
    return new AppError('MALFORMED_JSON', 'The request body is not valid JSON');
  }
  if (error instanceof SealedValueError) {
    // Logged by the handler (a 500) with `err.where`: the key id and row, never a value.
    return new AppError(
      'SEALED_VALUE_UNREADABLE',
      'A stored value could not be decrypted; the service operators can find it in the log by this request id',
    );
  }
  // The client went away while its body was arriving: its ECONNRESET is the request's, not the
  // database's (it was logged as an outage, so anyone could raise false alarms).
  if ((error as NodeJS.ErrnoException).code === 'ECONNRESET' && (request.raw.readableAborted || request.raw.destroyed)) {
    return new AppError('BAD_REQUEST', 'The request did not arrive whole: the connection was closed before its end');
  }
  if (isDatabaseUnavailable(error)) {
    const message = hasSqlState(error, DISK_FULL_SQLSTATE)
      ? 'The service is short of disk space; retry shortly'
      : isStalePreparedStatement(error)
        ? 'The service was updated while this request ran; retry it'
        : 'The database is not answering; retry shortly';
    return new AppError('UNAVAILABLE', message, {
      retryAfter: DATABASE_RETRY_AFTER_SECONDS,
    });
  }
  // A plugin's own client error (the rate limiter's 429; the docs' static files: 403 for a path that
  // climbs out, 412 and 416 for conditional and range headers) keeps its status, under our code.
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    return new AppError(CLIENT_ERROR_CODES[status] ?? 'BAD_REQUEST', error.message || 'The request was refused');
  }
  return undefined;
}

const CLIENT_ERROR_CODES: Partial<Record<number, ErrorCode>> = {
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  408: 'REQUEST_TIMEOUT',
  412: 'PRECONDITION_FAILED',
  413: 'PAYLOAD_TOO_LARGE',
  414: 'URI_TOO_LONG',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  416: 'RANGE_NOT_SATISFIABLE',
  429: 'RATE_LIMITED',
  431: 'HEADERS_TOO_LARGE',
};

export function errorBody(request: FastifyRequest, error: AppError): ErrorBody {
  return {
    success: false,
    message: error.message,
    data: {
      code: error.code,
      requestId: String(request.id),
      ...(error.details.errors
        ? { errors: error.details.errors.slice(0, MAX_LISTED_ERRORS), errorCount: error.details.errors.length }
        : {}),
      ...(error.details.retryAfter !== undefined ? { retryAfter: error.details.retryAfter } : {}),
      ...(error.details.members ? { members: error.details.members } : {}),
    },
  };
}

/** Renders every error as the envelope; unexpected ones are logged in full and answered without detail. */
export function errorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  let appError = toAppError(error, request);
  if (!appError) {
    request.log.error({ err: error }, 'unexpected error');
    appError = new AppError('INTERNAL', 'Internal server error');
  } else if (appError.code === 'UNAVAILABLE') {
    // An outage is the operator's to see once (the database's own logs, /readyz), not an error per request.
    request.log.warn({ err: { message: error.message, code: (error as { code?: unknown }).code } }, appError.message);
  } else if (appError.status >= 500) {
    request.log.error({ err: error }, appError.message);
  }
  if (appError.details.retryAfter !== undefined) reply.header('retry-after', String(appError.details.retryAfter));
  return reply.code(appError.status).send(errorBody(request, appError));
}

export function notFoundHandler(_request: FastifyRequest, reply: FastifyReply) {
  return reply.code(404).send(ROUTE_NOT_FOUND);
}
