/** Every failure the API reports, by machine code. The HTTP status follows from the code alone. */
export const ERROR_STATUS = {
  VALIDATION_FAILED: 400,
  MALFORMED_JSON: 400,
  /** Below the level of fields: the path's percent-encoding or the HTTP itself is broken. */
  BAD_REQUEST: 400,
  API_KEY_MISSING: 401,
  API_KEY_INVALID: 401,
  INVALID_CREDENTIALS: 401,
  TOTP_REQUIRED: 401,
  TOTP_INVALID: 401,
  SESSION_INVALID: 401,
  INVITATION_INVALID: 400,
  /** A password reset link that is unknown, expired, already used, or of an account no longer active. */
  LINK_INVALID: 400,
  TOTP_ENROLMENT_REQUIRED: 403,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  REQUEST_TIMEOUT: 408,
  INVALID_STATE: 409,
  /** Sign-in: the password opens accounts at several members; `data.members` names them. */
  MEMBER_CHOICE_REQUIRED: 409,
  IDEMPOTENCY_IN_FLIGHT: 409,
  COMPANY_NAME_TAKEN: 409,
  PRECONDITION_FAILED: 412,
  PAYLOAD_TOO_LARGE: 413,
  URI_TOO_LONG: 414,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RANGE_NOT_SATISFIABLE: 416,
  IDEMPOTENCY_MISMATCH: 422,
  IDENTIFIER_SAFELISTED: 422,
  RATE_LIMITED: 429,
  HEADERS_TOO_LARGE: 431,
  INTERNAL: 500,
  SEALED_VALUE_UNREADABLE: 500,
  UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface FieldError {
  /** JSON-pointer path into the body without the leading slash, or a query/path parameter name. */
  field: string;
  message: string;
}

/** A member a person may sign in to: offered only after the password proved the account. */
export interface MemberChoice {
  memberId: string;
  name: string;
}

/** The one error type of the service. Routes and services throw it; the error handler renders it. */
export class AppError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: { errors?: FieldError[]; retryAfter?: number; members?: MemberChoice[] } = {},
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
  }

  static validation(errors: FieldError[], message = 'Validation failed'): AppError {
    return new AppError('VALIDATION_FAILED', message, { errors });
  }

  static notFound(message: string): AppError {
    return new AppError('NOT_FOUND', message);
  }
}
