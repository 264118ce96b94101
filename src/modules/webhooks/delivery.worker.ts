import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { Crypto } from '../../crypto/load-crypto.js';
import type { Database } from '../../db/schema.js';
import { DAY_MS } from '../../jobs/clock.js';
import { jobRequestId, SYSTEM_KEY_ID } from '../../jobs/system-actor.js';
import { recordAudit } from '../audit/audit.repository.js';
import { openWatchlistRef } from '../watchlists/watchlist-ref.js';
import { type SendOutcome, sendWebhook } from './delivery.sender.js';
import { signedHeaders } from './signing.js';
import { checkWebhookUrl } from './url-guard.js';
import { endpointSecrets } from './webhook-secrets.js';

/** Deliveries one worker pass claims. */
const BATCH = 50;
/** A claim lapses after this: a worker killed mid-send frees its deliveries for another. */
const LEASE_MS = 60_000;
/** A delivery is retried this long after its event (well past the 24 hours promised). */
export const RETRY_WINDOW_MS = 3 * DAY_MS;
/** An endpoint failing for this long is disabled. */
export const DISABLE_AFTER_MS = 3 * DAY_MS;
const FIRST_RETRY_MS = 30_000;
const LONGEST_RETRY_MS = 6 * 3600_000;

/** Exponential backoff (30 s doubling, at most 6 h) with ±20 % jitter, so a recovering receiver is not stampeded. */
export function retryDelayMs(attempt: number, random = Math.random): number {
  const base = Math.min(FIRST_RETRY_MS * 2 ** Math.max(0, attempt - 1), LONGEST_RETRY_MS);
  return Math.round(base * (0.8 + 0.4 * random()));
}

interface Claimed {
  id: string;
  attempts: number;
  created_at: Date;
  event_id: string;
  type: string;
  report_id: string;
  payload: unknown;
  event_created_at: Date;
  endpoint_id: string;
  company_id: string;
  url: string;
  secret_token: string;
  previous_secret_token: string | null;
  previous_secret_until: Date | null;
  /** The watchlist entry the event names, if it still exists (its `ref` is added as the delivery is sent). */
  entry_id: string | null;
  entry_company_id: string | null;
  entry_ref: string | null;
  entry_ref_token: string | null;
}

interface Log {
  error(obj: object, msg: string): void;
}

/**
 * An attempt's outcome. `ours` marks one that failed before anything was sent, because this instance
 * could not open a sealed value (a key missing or mid-rotation): the member's endpoint did nothing
 * wrong, so it is retried without counting towards the endpoint's 3 days of failure.
 */
type Outcome = SendOutcome & { ours?: true };

/** What the member's log shows for such an attempt; the cause goes to the operators' log only. */
export const NOT_PREPARED = 'not sent: this delivery could not be prepared; it will be retried';
/** The same, once its retry window is over. */
export const NOT_PREPARED_GIVEN_UP =
  'not sent: this delivery could not be prepared and was given up; redeliver it once the operators say it can go';

/**
 * The delivery worker, run on every instance: each pass claims due deliveries with
 * `FOR UPDATE SKIP LOCKED` (two instances never take the same one; PGlite supports it too) and a
 * lease, sends them, and records each attempt. Time comes from `now`, so tests move a clock.
 */
export function createDeliveryWorker(deps: { db: Kysely<Database>; crypto: Crypto; allowPrivate: boolean; log: Log }) {
  const { db, crypto, allowPrivate } = deps;

  async function claim(now: Date): Promise<Claimed[]> {
    const leaseUntil = new Date(now.getTime() + LEASE_MS);
    const result = await sql<Claimed>`
      with due as (
        select d.id from webhook_deliveries d
        join webhook_endpoints ep on ep.id = d.endpoint_id and ep.status = 'active'
        where d.status = 'pending' and d.next_attempt_at <= ${now} and (d.locked_until is null or d.locked_until <= ${now})
        order by d.next_attempt_at
        limit ${BATCH}
        for update of d skip locked
      ), claimed as (
        update webhook_deliveries d set locked_until = ${leaseUntil}, attempts = d.attempts + 1
        from due where d.id = due.id
        returning d.id, d.attempts, d.created_at, d.event_id, d.endpoint_id
      )
      select c.id, c.attempts, c.created_at, c.event_id, e.type, e.report_id, e.payload, e.created_at as event_created_at,
        c.endpoint_id, ep.company_id, ep.url, ep.secret_token, ep.previous_secret_token, ep.previous_secret_until,
        w.id as entry_id, w.company_id as entry_company_id, w.ref as entry_ref, w.ref_token as entry_ref_token
      from claimed c join webhook_events e on e.id = c.event_id join webhook_endpoints ep on ep.id = c.endpoint_id
      left join watchlist_entries w on w.id = e.watchlist_entry_id`.execute(db);
    return result.rows;
  }

  /**
   * The payload with the watchlist entry's `ref`, which is sealed at rest and so not stored in the
   * event (decision 0135): opened as the delivery is sent, null once the member removed the entry.
   */
  function payloadToSend(row: Claimed): unknown {
    const payload = row.payload as { watchlistEntry?: object };
    if (!payload.watchlistEntry) return payload;
    const ref =
      row.entry_id && row.entry_company_id
        ? openWatchlistRef(crypto.keyring, {
            id: row.entry_id,
            company_id: row.entry_company_id,
            ref: row.entry_ref,
            ref_token: row.entry_ref_token,
          })
        : null;
    return { ...payload, watchlistEntry: { ...payload.watchlistEntry, ref } };
  }

  /** The body and the secrets to sign it with, or null (logged) when a sealed value cannot be opened. */
  function prepare(row: Claimed, now: Date) {
    try {
      const body = JSON.stringify({
        type: row.type,
        timestamp: new Date(row.event_created_at).toISOString(),
        data: payloadToSend(row),
      });
      return { body, secrets: endpointSecrets(crypto, row, now) };
    } catch (err) {
      deps.log.error({ err, deliveryId: row.id, endpointId: row.endpoint_id }, 'could not prepare a webhook delivery');
      return null;
    }
  }

  async function attempt(row: Claimed, now: Date): Promise<Outcome> {
    const guard = await checkWebhookUrl(row.url, allowPrivate);
    if (!guard.ok) return { statusCode: null, latencyMs: 0, error: `refused: ${guard.reason}` };
    const prepared = prepare(row, now);
    if (!prepared) return { statusCode: null, latencyMs: 0, error: NOT_PREPARED, ours: true };
    const { body, secrets } = prepared;
    // The delivery id is the message id: a redelivery repeats it, so receivers can drop duplicates.
    return sendWebhook(guard.target, signedHeaders(secrets, `msg_${row.id}`, new Date(), body), body);
  }

  const attemptRow = (row: Claimed, outcome: SendOutcome) => ({
    id: randomUUID(),
    delivery_id: row.id,
    attempt: row.attempts,
    status_code: outcome.statusCode,
    latency_ms: outcome.latencyMs,
    error: outcome.error,
  });

  /** The successes of a pass, in one transaction of four statements however many there were. */
  async function recordDelivered(done: Array<{ row: Claimed; outcome: SendOutcome }>, now: Date): Promise<void> {
    if (done.length === 0) return;
    const ids = done.map((d) => d.row.id);
    const endpoints = [...new Set(done.map((d) => d.row.endpoint_id))];
    const published = done.filter((d) => d.row.type === 'public_report.published').map((d) => d.row.report_id);
    await db.transaction().execute(async (trx) => {
      await trx
        .insertInto('webhook_attempts')
        .values(done.map((d) => attemptRow(d.row, d.outcome)))
        .execute();
      await trx
        .updateTable('webhook_deliveries')
        .set({ status: 'delivered', delivered_at: now, locked_until: null })
        .where('id', 'in', ids)
        .execute();
      await trx
        .updateTable('webhook_endpoints')
        .set({ failing_since: null })
        .where('id', 'in', endpoints)
        .where('failing_since', 'is not', null)
        .execute();
      if (published.length > 0) {
        await trx.updateTable('public_reports').set({ notification_sent: true }).where('id', 'in', published).execute();
      }
    });
  }

  /**
   * A failed attempt: retry later (or give up after the window), and disable an endpoint failing for
   * 3 days; an attempt that failed on our side leaves the endpoint's record alone.
   */
  async function recordFailed(row: Claimed, outcome: Outcome, now: Date): Promise<void> {
    const expired = now.getTime() - new Date(row.created_at).getTime() >= RETRY_WINDOW_MS;
    const logged = expired && outcome.ours ? { ...outcome, error: NOT_PREPARED_GIVEN_UP } : outcome;
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('webhook_attempts').values(attemptRow(row, logged)).execute();
      await trx
        .updateTable('webhook_deliveries')
        .set(
          expired
            ? { status: 'failed', locked_until: null }
            : { next_attempt_at: new Date(now.getTime() + retryDelayMs(row.attempts)), locked_until: null },
        )
        .where('id', '=', row.id)
        .execute();
      if (outcome.ours) return;
      const endpoint = await trx
        .updateTable('webhook_endpoints')
        .set({ failing_since: sql`coalesce(failing_since, ${now})` })
        .where('id', '=', row.endpoint_id)
        .returning(['failing_since', 'status'])
        .executeTakeFirst();
      const failingSince = endpoint?.failing_since;
      if (endpoint?.status === 'active' && failingSince && now.getTime() - failingSince.getTime() >= DISABLE_AFTER_MS) {
        await trx
          .updateTable('webhook_endpoints')
          .set({ status: 'disabled', disabled_at: now, updated_at: now })
          .where('id', '=', row.endpoint_id)
          .execute();
        await recordAudit(trx, {
          companyId: row.company_id,
          keyId: SYSTEM_KEY_ID,
          requestId: jobRequestId('webhooks.deliver', now),
          action: 'webhook.disabled',
        });
      }
    });
    if (expired && outcome.ours) {
      deps.log.error(
        { deliveryId: row.id, endpointId: row.endpoint_id },
        'a webhook delivery was given up: it could not be prepared',
      );
    }
  }

  return {
    /** One pass: claims due deliveries, sends them side by side, records each; returns how many were attempted. */
    async runDue(now: Date): Promise<number> {
      const rows = await claim(now);
      const outcomes = await Promise.all(
        rows.map(async (row) => ({
          row,
          outcome: await attempt(row, now).catch(
            (err: unknown): Outcome => ({
              statusCode: null,
              latencyMs: 0,
              error: err instanceof Error ? err.message : 'failed',
            }),
          ),
        })),
      );
      // An attempt not recorded stays claimed until its lease lapses, then is sent again (at least once).
      await recordDelivered(
        outcomes.filter((o) => o.outcome.error === null),
        now,
      ).catch((err: unknown) => deps.log.error({ err }, 'could not record webhook deliveries'));
      for (const { row, outcome } of outcomes.filter((o) => o.outcome.error !== null)) {
        await recordFailed(row, outcome, now).catch((err: unknown) =>
          deps.log.error({ err, deliveryId: row.id }, 'could not record a webhook attempt'),
        );
      }
      return rows.length;
    },
    batchSize: BATCH,
  };
}

export type DeliveryWorker = ReturnType<typeof createDeliveryWorker>;
