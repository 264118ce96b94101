/** The root key is missing, malformed or not the one the database was encrypted with: start-up stops. */
export class CryptoConfigError extends Error {}

export type SealedValueFailure = 'malformed' | 'authentication-failed' | 'unknown-key';

/** Where an unopenable token was: ids only, never a value; logged so an operator can find the row. */
export interface SealedValueWhere {
  keyId?: string | undefined;
  companyId?: string | undefined;
  recordId?: string | undefined;
  label?: string | undefined;
  /** The identifier row, where the caller knows it. */
  rowId?: string | undefined;
}

/**
 * A sealed token that cannot be opened. Never answered with garbage: the caller gets this instead,
 * and the API answers 500 SEALED_VALUE_UNREADABLE (or marks the one item of a list unreadable).
 */
export class SealedValueError extends Error {
  constructor(
    readonly reason: SealedValueFailure,
    message: string,
    readonly where: SealedValueWhere = {},
  ) {
    super(message);
  }
}
