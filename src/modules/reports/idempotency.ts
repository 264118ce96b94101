import { randomUUID } from 'node:crypto';
import { type Kysely, sql, type Transaction } from 'kysely';
import type { SealContext } from '../../crypto/keyring.js';
import type { Database } from '../../db/schema.js';
import { AppError } from '../../http/errors.js';

/** How long a stored response is replayed. */
const REPLAY_WINDOW_MS = 24 * 60 * 60 * 1000;
/**
 * A marker from before markers named their process: still "in flight" after this long, it died
 * with its process and another attempt may take over.
 */
const ABANDONED_AFTER_MS = 60 * 1000;
/** What a retry of a request still running in a live process is told to wait, in seconds. */
const IN_FLIGHT_RETRY_AFTER_SECONDS = 1;
/**
 * A retry whose key is held by a process whose lease runs out within this long waits here, polling,
 * instead of being sent away: a process killed a moment ago still has up to a lease
 * (INSTANCE_LEASE_MS) to run, and a retry answered the moment it lapses beats a 409 and a second
 * retry. A live holder that finishes meanwhile gets its response replayed.
 */
const IN_FLIGHT_WAIT_MS = 2_500;
const IN_FLIGHT_POLL_MS = 100;

const inFlight = () =>
  new AppError('IDEMPOTENCY_IN_FLIGHT', 'A request with this Idempotency-Key is still being processed; retry shortly', {
    retryAfter: IN_FLIGHT_RETRY_AFTER_SECONDS,
  });

export interface IdempotencyScope {
  companyId: string;
  key: string;
  requestHash: Buffer;
  /** The service instance (see instance-lease.ts) the request runs in. */
  instanceId: string;
}

/** A key held by one request: only that request's claim may complete or release it. */
export interface IdempotencyClaim {
  companyId: string;
  key: string;
  rowId: string;
  claimId: string;
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

export type IdempotencyStart =
  | { kind: 'proceed'; rowId: string; claimId: string }
  | { kind: 'replay'; status: number; body: unknown };

/**
 * Claims the key for this request, or says what to do instead: replay the stored response,
 * 409 while the first request runs, 422 when the key was used for another body.
 */
export async function startIdempotent(
  db: Kysely<Database>,
  scope: IdempotencyScope,
  sealer: ResponseSealer,
  waitUntil = Date.now() + IN_FLIGHT_WAIT_MS,
): Promise<IdempotencyStart> {
  const claimId = randomUUID();
  const claimed = await db
    .insertInto('idempotency_keys')
    .values({
      company_id: scope.companyId,
      key: scope.key,
      request_hash: scope.requestHash,
      state: 'in_flight',
      claimed_by: scope.instanceId,
      claim_id: claimId,
    })
    .onConflict((oc) => oc.columns(['company_id', 'key']).doNothing())
    .returning('id')
    .executeTakeFirst();
  if (claimed) return { kind: 'proceed', rowId: claimed.id, claimId };

  const existing = await db
    .selectFrom('idempotency_keys')
    .select([
      'id',
      'request_hash',
      'state',
      'response_status',
      'response_body',
      'claim_id',
      sql<number>`extract(epoch from now() - created_at) * 1000`.as('age_ms'),
      // Whether the process that holds the key is alive: its lease has not lapsed.
      sql<boolean | null>`(select bool_or(lease_until > now()) from service_instances where id = claimed_by)`.as('owner_alive'),
      sql<boolean>`claimed_by is not null`.as('owner_known'),
      // How long the holder's lease still runs (capped: the embedded engine's is infinite).
      sql<
        number | null
      >`least(1e9, extract(epoch from (select max(lease_until) from service_instances where id = claimed_by) - now()) * 1000)`.as(
        'lease_left_ms',
      ),
    ])
    .where('company_id', '=', scope.companyId)
    .where('key', '=', scope.key)
    .executeTakeFirst();
  if (!existing) return startIdempotent(db, scope, sealer, waitUntil); // removed in between (a failed first attempt): try again
  const expired = existing.age_ms > REPLAY_WINDOW_MS;
  const abandoned =
    existing.state === 'in_flight' &&
    (existing.owner_known ? existing.owner_alive !== true : existing.age_ms > ABANDONED_AFTER_MS);
  // A row from before digests were keyed had its plain SHA-256 erased (migration 0008, all zeros):
  // for the rest of its 24 hours the key alone identifies the request.
  const stored = Buffer.from(existing.request_hash);
  const erased = stored.every((byte) => byte === 0);
  if (!expired && !erased && !stored.equals(scope.requestHash)) {
    throw new AppError('IDEMPOTENCY_MISMATCH', 'This Idempotency-Key was used with a different request body');
  }
  if (expired || abandoned) {
    // Take the key over, but only if nobody else did first: the claim seen above must still be the one there.
    const taken = await db
      .updateTable('idempotency_keys')
      .set({
        request_hash: scope.requestHash,
        state: 'in_flight',
        response_status: null,
        response_body: null,
        created_at: sql`now()`,
        claimed_by: scope.instanceId,
        claim_id: claimId,
      })
      .where('company_id', '=', scope.companyId)
      .where('key', '=', scope.key)
      .where('state', '=', existing.state)
      .where(sql<boolean>`claim_id is not distinct from ${existing.claim_id}`)
      .returning('id')
      .executeTakeFirst();
    if (taken) return { kind: 'proceed', rowId: taken.id, claimId };
    throw inFlight();
  }
  if (existing.state === 'in_flight') {
    const leaseLeft = existing.lease_left_ms === null ? Number.POSITIVE_INFINITY : Number(existing.lease_left_ms);
    if (Date.now() + Math.min(leaseLeft, IN_FLIGHT_POLL_MS) > waitUntil || leaseLeft > IN_FLIGHT_WAIT_MS) throw inFlight();
    await new Promise((resolve) => setTimeout(resolve, Math.max(10, Math.min(leaseLeft + 10, IN_FLIGHT_POLL_MS))));
    return startIdempotent(db, scope, sealer, waitUntil);
  }
  const text = existing.response_body ? sealer.open(existing.response_body, contextOf(scope.companyId, existing.id)) : 'null';
  return { kind: 'replay', status: existing.response_status ?? 200, body: JSON.parse(text) };
}

/** Stores the response in the transaction that made the change, so both land or neither does. */
export async function completeIdempotent(
  trx: Transaction<Database>,
  claim: IdempotencyClaim,
  status: number,
  body: unknown,
  sealer: ResponseSealer,
) {
  const sealed = sealer.seal(JSON.stringify(body), contextOf(claim.companyId, claim.rowId));
  const result = await trx
    .updateTable('idempotency_keys')
    .set({ state: 'done', response_status: status, response_body: sealed })
    .where('id', '=', claim.rowId)
    .where('claim_id', '=', claim.claimId)
    .executeTakeFirst();
  // Another request took the key over (this one's process looked dead): its change must not land twice.
  if (Number(result.numUpdatedRows) !== 1) throw inFlight();
}

/** A failed request is not stored: the same key may be retried at once. */
export async function abandonIdempotent(db: Kysely<Database>, claim: IdempotencyClaim) {
  await db
    .deleteFrom('idempotency_keys')
    .where('id', '=', claim.rowId)
    .where('claim_id', '=', claim.claimId)
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
