import { createHash } from 'node:crypto';
import { type Kysely, sql, type Transaction } from 'kysely';
import type { SealContext } from '../../crypto/keyring.js';
import type { Database } from '../../db/schema.js';
import { AppError } from '../../http/errors.js';

/** How long a stored response is replayed. */
const REPLAY_WINDOW_MS = 24 * 60 * 60 * 1000;
/** A request still "in flight" after this long died with its process: another attempt may take over. */
const ABANDONED_AFTER_MS = 60 * 1000;

export interface IdempotencyScope {
  companyId: string;
  key: string;
  requestHash: Buffer;
}

/**
 * The stored response repeats the clear identifiers the caller sent, so it is sealed like they are,
 * bound to its row.
 */
export interface ResponseSealer {
  seal(text: string, context: SealContext): string;
  open(token: string, context: SealContext): string;
}

export const RESPONSE_LABEL = 'idempotent_response';

const contextOf = (companyId: string, rowId: string): SealContext => ({ companyId, recordId: rowId, label: RESPONSE_LABEL });

export type IdempotencyStart = { kind: 'proceed'; rowId: string } | { kind: 'replay'; status: number; body: unknown };

/** Key order and whitespace do not make a different request; any other difference does. */
export function hashRequest(body: unknown): Buffer {
  return createHash('sha256').update(canonicalJson(body)).digest();
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Claims the key for this request, or says what to do instead: replay the stored response,
 * 409 while the first request runs, 422 when the key was used for another body.
 */
export async function startIdempotent(
  db: Kysely<Database>,
  scope: IdempotencyScope,
  sealer: ResponseSealer,
): Promise<IdempotencyStart> {
  const claimed = await db
    .insertInto('idempotency_keys')
    .values({ company_id: scope.companyId, key: scope.key, request_hash: scope.requestHash, state: 'in_flight' })
    .onConflict((oc) => oc.columns(['company_id', 'key']).doNothing())
    .returning('id')
    .executeTakeFirst();
  if (claimed) return { kind: 'proceed', rowId: claimed.id };

  const existing = await db
    .selectFrom('idempotency_keys')
    .select([
      'id',
      'request_hash',
      'state',
      'response_status',
      'response_body',
      sql<number>`extract(epoch from now() - created_at) * 1000`.as('age_ms'),
    ])
    .where('company_id', '=', scope.companyId)
    .where('key', '=', scope.key)
    .executeTakeFirst();
  if (!existing) return startIdempotent(db, scope, sealer); // removed in between (a failed first attempt): try again
  const expired = existing.age_ms > REPLAY_WINDOW_MS;
  const abandoned = existing.state === 'in_flight' && existing.age_ms > ABANDONED_AFTER_MS;
  if (!expired && !Buffer.from(existing.request_hash).equals(scope.requestHash)) {
    throw new AppError('IDEMPOTENCY_MISMATCH', 'This Idempotency-Key was used with a different request body');
  }
  if (expired || abandoned) {
    // Take the key over, but only if nobody else did first.
    const taken = await db
      .updateTable('idempotency_keys')
      .set({
        request_hash: scope.requestHash,
        state: 'in_flight',
        response_status: null,
        response_body: null,
        created_at: sql`now()`,
      })
      .where('company_id', '=', scope.companyId)
      .where('key', '=', scope.key)
      .where('state', '=', existing.state)
      .where(sql<boolean>`extract(epoch from now() - created_at) * 1000 > ${expired ? REPLAY_WINDOW_MS : ABANDONED_AFTER_MS}`)
      .returning('id')
      .executeTakeFirst();
    if (taken) return { kind: 'proceed', rowId: taken.id };
    throw new AppError('IDEMPOTENCY_IN_FLIGHT', 'A request with this Idempotency-Key is still being processed; retry shortly');
  }
  if (existing.state === 'in_flight') {
    throw new AppError('IDEMPOTENCY_IN_FLIGHT', 'A request with this Idempotency-Key is still being processed; retry shortly');
  }
  const text = existing.response_body ? sealer.open(existing.response_body, contextOf(scope.companyId, existing.id)) : 'null';
  return { kind: 'replay', status: existing.response_status ?? 200, body: JSON.parse(text) };
}

/** Stores the response in the transaction that made the change, so both land or neither does. */
export async function completeIdempotent(
  trx: Transaction<Database>,
  claim: { companyId: string; key: string; rowId: string },
  status: number,
  body: unknown,
  sealer: ResponseSealer,
) {
  const sealed = sealer.seal(JSON.stringify(body), contextOf(claim.companyId, claim.rowId));
  await trx
    .updateTable('idempotency_keys')
    .set({ state: 'done', response_status: status, response_body: sealed })
    .where('id', '=', claim.rowId)
    .execute();
}

/** A failed request is not stored: the same key may be retried at once. */
export async function abandonIdempotent(db: Kysely<Database>, scope: IdempotencyScope) {
  await db
    .deleteFrom('idempotency_keys')
    .where('company_id', '=', scope.companyId)
    .where('key', '=', scope.key)
    .where('state', '=', 'in_flight')
    .execute();
}

export async function purgeExpiredIdempotencyKeys(db: Kysely<Database>): Promise<number> {
  const result = await db
    .deleteFrom('idempotency_keys')
    .where('created_at', '<', sql<Date>`now() - interval '24 hours'`)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
