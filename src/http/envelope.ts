import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { type Static, type TSchema, Type } from 'typebox';
import { AppError, type FieldError } from './errors.js';

/** `{ success, message, data }` with `data` described by `data`. */
export function Envelope<T extends TSchema>(data: T) {
  return Type.Object({ success: Type.Boolean(), message: Type.String(), data });
}

export const ErrorEnvelope = Type.Object(
  {
    success: Type.Boolean(),
    message: Type.String(),
    data: Type.Object({
      code: Type.String(),
      requestId: Type.String(),
      errors: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
      retryAfter: Type.Optional(Type.Integer()),
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
      return { field: base, message: `must be at least ${p.limit} characters` };
    case 'maxLength':
      return { field: base, message: `must be at most ${p.limit} characters` };
    case 'minItems':
      return { field: base, message: `must have at least ${p.limit} item${p.limit === 1 ? '' : 's'}` };
    case 'maxItems':
      return { field: base, message: `must have at most ${p.limit} items` };
    case 'enum':
      return { field: base, message: `must be one of: ${(p.allowedValues as unknown[]).join(', ')}` };
    case 'type':
      return { field: base, message: `must be ${article(String(p.type))}` };
    case 'format':
      return { field: base, message: `must be a valid ${p.format}` };
    case 'minimum':
      return { field: base, message: `must be at least ${p.limit}` };
    case 'maximum':
      return { field: base, message: `must be at most ${p.limit}` };
    case 'pattern':
      return { field: base, message: 'has an invalid format' };
    default:
      return { field: base, message: error.message ?? 'is invalid' };
  }
}

function article(type: string): string {
  const named = type.split(',').map((t) => (t === 'integer' || t === 'object' || t === 'array' ? `an ${t}` : `a ${t}`));
  return named.join(' or ');
}

/** Fastify's own failures, mapped onto our codes. */
function toAppError(error: FastifyError): AppError | undefined {
  if (error instanceof AppError) return error;
  if (error.validation) {
    const seen = new Set<string>();
    const errors = (error.validation as AjvError[])
      .map(describe)
      .map(
        // The whole body has no field name; say what it is.
        (e) => (e.field === '' ? { ...e, message: `the request body ${e.message}` } : e),
      )
      .filter((e) => {
        const key = `${e.field}\u0000${e.message}`;
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      });
    return AppError.validation(errors);
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('MALFORMED_JSON', 'The request body is not valid JSON');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('PAYLOAD_TOO_LARGE', 'The request body is too large');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('UNSUPPORTED_MEDIA_TYPE', 'Unsupported content type; send application/json');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('VALIDATION_FAILED', 'The Content-Length header does not match the body');
  }
  if (error instanceof SyntaxError && error.statusCode === 400) {
    return new AppError('MALFORMED_JSON', 'The request body is not valid JSON');
  }
  if (error.statusCode === 429) {
    return new AppError('RATE_LIMITED', error.message || 'Too many requests');
  }
  return undefined;
}

export function errorBody(request: FastifyRequest, error: AppError): ErrorBody {
  return {
    success: false,
    message: error.message,
    data: {
      code: error.code,
      requestId: String(request.id),
      ...(error.details.errors ? { errors: error.details.errors } : {}),
      ...(error.details.retryAfter !== undefined ? { retryAfter: error.details.retryAfter } : {}),
    },
  };
}

/** Renders every error as the envelope; unexpected ones are logged in full and answered without detail. */
export function errorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  let appError = toAppError(error);
  if (!appError) {
    request.log.error({ err: error }, 'unexpected error');
    appError = new AppError('INTERNAL', 'Internal server error');
  } else if (appError.status >= 500) {
    request.log.error({ err: error }, appError.message);
  }
  if (appError.details.retryAfter !== undefined) reply.header('retry-after', String(appError.details.retryAfter));
  return reply.code(appError.status).send(errorBody(request, appError));
}

export function notFoundHandler(_request: FastifyRequest, reply: FastifyReply) {
  return reply.code(404).send(ROUTE_NOT_FOUND);
}
