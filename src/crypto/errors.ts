/** The root key is missing, malformed or not the one the database was encrypted with: start-up stops. */
export class CryptoConfigError extends Error {}

export type SealedValueFailure = 'malformed' | 'authentication-failed';

/** A sealed token that cannot be opened. Never answered with garbage: the caller gets this instead. */
export class SealedValueError extends Error {
  constructor(
    readonly reason: SealedValueFailure,
    message: string,
  ) {
    super(message);
  }
}
