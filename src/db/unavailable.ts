/**
 * Whether an error means "the database cannot be reached or did not answer in time" rather than
 * "this query is wrong": the first is a 503 the client may retry, the second a bug (500).
 */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs of a server going away, refusing connections, cancelling a statement that ran too long,
 * or out of disk (53100, also the embedded engine's reserve, disk-reserve.ts): space can be freed.
 */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '57014', '53100', '53300', '53400']);

/** What node-postgres and pg-pool say when the connection, not the query, failed. */
const CONNECTION_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Query read timeout',
  'is not queryable',
  'Client was closed and is not queryable',
  'Cannot use a pool after calling end on the pool',
  'connection timeout',
];

/**
 * A query that waited in the process's own queue (search-coalescer.ts) as long as the pool lets one
 * wait for a connection: the database is away or too slow, as with the pool's own timeout.
 */
export class DatabaseWaitTimeoutError extends Error {}

/** The error and the errors it was caused by, five at most (a cycle of causes must not loop). */
function* causeChain(error: unknown): Generator<Error> {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; depth++) {
    yield current;
    current = (current as { cause?: unknown }).cause;
  }
}

/** Whether the error, or one it was caused by, carries this SQLSTATE. */
export function hasSqlState(error: unknown, sqlState: string): boolean {
  for (const current of causeChain(error)) if ((current as { code?: unknown }).code === sqlState) return true;
  return false;
}

/**
 * PostgreSQL refusing a prepared statement whose result changed shape since it was prepared: a
 * migration run by another instance added a column to a table it reads whole (`select *`). The
 * same statement prepared again works, so it is a 503 to retry, not a bug (prepared-pool.ts
 * prepares that connection's statements again under new names).
 */
export function isStalePreparedStatement(error: unknown): boolean {
  for (const current of causeChain(error)) {
    const { code, routine } = current as { code?: unknown; routine?: unknown };
    // The function that raised it, not the message, which a server may say in another language.
    if (
      code === '0A000' &&
      (routine === 'RevalidateCachedQuery' || current.message.includes('cached plan must not change result type'))
    )
      return true;
  }
  return false;
}

export function isDatabaseUnavailable(error: unknown): boolean {
  if (isStalePreparedStatement(error)) return true;
  for (const current of causeChain(error)) {
    if (current instanceof DatabaseWaitTimeoutError) return true;
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') {
      if (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || code.startsWith('08')) return true;
    }
    if (CONNECTION_MESSAGES.some((text) => current.message.includes(text))) return true;
  }
  return false;
}
