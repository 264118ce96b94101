import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable, Updateable } from 'kysely';
import type { Crypto } from '../../crypto/load-crypto.js';
import type { Database, WebhookEndpointStatus, WebhookEndpointsTable } from '../../db/schema.js';
import { AppError } from '../../http/errors.js';
import type { Clock } from '../../jobs/clock.js';
import { type ChangeActor, recordChange } from '../audit/audit.repository.js';
import { lockCompany } from '../companies/companies.repository.js';
import { isUuid } from '../ids.js';
import { newWebhookSecret } from './signing.js';
import { checkNewWebhookUrl } from './url-guard.js';
import { PREVIOUS_SECRET_LABEL, secretContext } from './webhook-secrets.js';
import {
  countDeliveries,
  countEndpoints,
  deleteEndpoint,
  findEndpoint,
  insertEndpoint,
  listAttempts,
  listDeliveries,
  listEndpoints,
  lockEndpoint,
  requeueDelivery,
  updateEndpoint,
} from './webhooks.repository.js';

export const MAX_ENDPOINTS_PER_COMPANY = 10;
export const DEFAULT_OVERLAP_HOURS = 24;

export interface WebhookView {
  id: string;
  url: string;
  events: string[];
  status: WebhookEndpointStatus;
  disabledAt: string | null;
  /** Since when its deliveries fail (null once one succeeds); it is paused after 3 days of it. */
  failingSince: string | null;
  /** Until when the previous secret still signs too (after a rotation). */
  previousSecretUntil: string | null;
  createdAt: string;
  updatedAt: string;
}

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

export function toView(row: Selectable<WebhookEndpointsTable>): WebhookView {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    status: row.status,
    disabledAt: iso(row.disabled_at),
    failingSince: iso(row.failing_since),
    previousSecretUntil: iso(row.previous_secret_until),
    createdAt: iso(row.created_at) as string,
    updatedAt: iso(row.updated_at) as string,
  };
}

/** A company's webhook endpoints: registration (SSRF-guarded), secrets shown once, rotation, the delivery log. */
export function createWebhooksService(deps: { db: Kysely<Database>; crypto: Crypto; clock: Clock; allowPrivate: boolean }) {
  const { db, crypto, clock, allowPrivate } = deps;

  /** The address as it will be reached (the URL parser's form: `８` is `8`, a host in lower case). */
  async function guard(url: string): Promise<string> {
    const result = await checkNewWebhookUrl(url, allowPrivate);
    if (!result.ok) throw AppError.validation([{ field: 'url', message: result.reason }]);
    return result.target.url.href;
  }

  /**
   * Changes an endpoint and records the change in one transaction. An endpoint removed at the same
   * moment is the 404 it now is (not a 500), with no audit row.
   */
  async function changeEndpoint(
    companyId: string,
    id: string,
    set: Updateable<WebhookEndpointsTable> | ((current: Selectable<WebhookEndpointsTable>) => Updateable<WebhookEndpointsTable>),
    action: 'webhook_change' | 'webhook_secret',
    actor: ChangeActor | undefined,
  ) {
    return db.transaction().execute(async (trx) => {
      // A change made from the endpoint as it is (a new secret keeps the current one beside it)
      // reads it under the row lock: two at once must not both build on the same current secret.
      const current = await lockEndpoint(trx, companyId, id);
      if (!current) throw AppError.notFound('Webhook endpoint not found');
      const changed = await updateEndpoint(trx, id, typeof set === 'function' ? set(current) : set);
      if (!changed) throw AppError.notFound('Webhook endpoint not found');
      await recordChange(trx, actor, { companyId, action, subjectId: id });
      return changed;
    });
  }

  async function own(companyId: string, id: string) {
    const row = isUuid(id) ? await findEndpoint(db, companyId, id.toLowerCase()) : undefined;
    if (!row) throw AppError.notFound('Webhook endpoint not found');
    return row;
  }

  return {
    async create(companyId: string, input: { url: string; events: string[] }, actor?: ChangeActor) {
      const url = await guard(input.url);
      const id = randomUUID();
      const secret = newWebhookSecret();
      const row = await db.transaction().execute(async (trx) => {
        // Counted under the company's row lock: two creates at once cannot both see room for one more.
        await lockCompany(trx, companyId);
        if ((await countEndpoints(trx, companyId)) >= MAX_ENDPOINTS_PER_COMPANY) {
          throw new AppError('INVALID_STATE', `A company may have at most ${MAX_ENDPOINTS_PER_COMPANY} webhook endpoints`);
        }
        const created = await insertEndpoint(trx, {
          id,
          company_id: companyId,
          url,
          events: [...new Set(input.events)],
          secret_token: crypto.keyring.seal(secret, secretContext(companyId, id)),
          previous_secret_token: null,
          previous_secret_until: null,
          failing_since: null,
          disabled_at: null,
        });
        await recordChange(trx, actor, { companyId, action: 'webhook_create', subjectId: id });
        return created;
      });
      return { ...toView(row), secret };
    },

    async list(companyId: string): Promise<WebhookView[]> {
      const rows = await listEndpoints(db, companyId);
      return rows.map(toView);
    },

    get: async (companyId: string, id: string) => toView(await own(companyId, id)),

    /** Changes the URL or events; `enabled: true` re-enables a disabled endpoint (its pending deliveries resume). */
    async update(
      companyId: string,
      id: string,
      input: { url?: string; events?: string[]; enabled?: boolean },
      actor?: ChangeActor,
    ) {
      const row = await own(companyId, id);
      const url = input.url === undefined ? undefined : await guard(input.url);
      const updated = await changeEndpoint(
        companyId,
        row.id,
        {
          ...(url !== undefined ? { url } : {}),
          ...(input.events !== undefined ? { events: [...new Set(input.events)] } : {}),
          ...(input.enabled === true ? { status: 'active' as const, disabled_at: null, failing_since: null } : {}),
          ...(input.enabled === false ? { status: 'disabled' as const, disabled_at: clock.now() } : {}),
        },
        'webhook_change',
        actor,
      );
      return toView(updated);
    },

    async remove(companyId: string, id: string, actor?: ChangeActor): Promise<void> {
      const row = await own(companyId, id);
      await db.transaction().execute(async (trx) => {
        // Removed twice at once: the second is the 404 it now is, with no second audit row.
        if (!(await deleteEndpoint(trx, row.id))) throw AppError.notFound('Webhook endpoint not found');
        await recordChange(trx, actor, { companyId, action: 'webhook_remove', subjectId: row.id });
      });
    },

    /** A new secret, shown once; the old one keeps signing (beside it) for `overlapHours`. */
    async rotateSecret(companyId: string, id: string, overlapHours = DEFAULT_OVERLAP_HOURS, actor?: ChangeActor) {
      const row = await own(companyId, id);
      const secret = newWebhookSecret();
      const updated = await changeEndpoint(
        companyId,
        row.id,
        (locked) => ({
          secret_token: crypto.keyring.seal(secret, secretContext(companyId, row.id)),
          previous_secret_token:
            overlapHours > 0
              ? crypto.keyring.seal(
                  crypto.keyring.open(locked.secret_token, secretContext(companyId, row.id)),
                  secretContext(companyId, row.id, PREVIOUS_SECRET_LABEL),
                )
              : null,
          previous_secret_until: overlapHours > 0 ? new Date(clock.now().getTime() + overlapHours * 3600_000) : null,
        }),
        'webhook_secret',
        actor,
      );
      return { ...toView(updated), secret };
    },

    /** The endpoint's deliveries, newest first, each with its attempts (attempt, status code, latency, error). */
    async deliveries(companyId: string, id: string, query: { page: number; limit: number }) {
      const endpoint = await own(companyId, id);
      const [rows, total] = await Promise.all([
        listDeliveries(db, endpoint.id, { limit: query.limit, offset: (query.page - 1) * query.limit }),
        countDeliveries(db, endpoint.id),
      ]);
      const attempts = await listAttempts(
        db,
        rows.map((r) => r.id),
      );
      const data = rows.map((r) => ({
        id: r.id,
        eventId: r.event_id,
        type: r.type,
        status: r.status,
        attempts: r.attempts,
        nextAttemptAt: r.status === 'pending' ? iso(r.next_attempt_at) : null,
        deliveredAt: iso(r.delivered_at),
        createdAt: iso(r.created_at) as string,
        log: attempts
          .filter((a) => a.delivery_id === r.id)
          .map((a) => ({
            attempt: a.attempt,
            statusCode: a.status_code,
            latencyMs: a.latency_ms,
            error: a.error,
            at: iso(a.created_at) as string,
          })),
      }));
      return { data, meta: { total, page: query.page, limit: query.limit } };
    },

    /** Sends a delivery again soon (delivered, failed or pending alike); the same `webhook-id` is repeated. */
    async redeliver(companyId: string, id: string, deliveryId: string): Promise<{ id: string; status: string }> {
      const endpoint = await own(companyId, id);
      const updated = isUuid(deliveryId)
        ? await requeueDelivery(db, endpoint.id, deliveryId.toLowerCase(), clock.now())
        : undefined;
      if (!updated) throw AppError.notFound('Delivery not found');
      return updated;
    },
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
