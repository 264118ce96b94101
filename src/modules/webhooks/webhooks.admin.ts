import { type Kysely, sql } from 'kysely';
import type { Database } from '../../db/schema.js';
import { AppError } from '../../http/errors.js';
import { isUuid } from '../ids.js';
import { toView, type WebhookView } from './webhooks.service.js';

export interface DeliveryBacklog {
  pending: number;
  failed: number;
  delivered: number;
  /** When the oldest pending delivery's event was written (null when none is pending). */
  oldestPendingAt: string | null;
}

/** What operators (the CLI) see and do about webhooks: never a secret or a clear value. */
export function createWebhooksAdmin({ db }: { db: Kysely<Database> }) {
  return {
    async list(companyId: string): Promise<WebhookView[]> {
      if (!isUuid(companyId)) throw AppError.notFound('Company not found');
      const rows = await db
        .selectFrom('webhook_endpoints')
        .selectAll()
        .where('company_id', '=', companyId.toLowerCase())
        .orderBy('created_at')
        .execute();
      return rows.map(toView);
    },

    /** The delivery backlog across every company (or one endpoint). */
    async backlog(endpointId?: string): Promise<DeliveryBacklog> {
      let query = db
        .selectFrom('webhook_deliveries')
        .select([
          sql<number>`count(*) filter (where status = 'pending')::int`.as('pending'),
          sql<number>`count(*) filter (where status = 'failed')::int`.as('failed'),
          sql<number>`count(*) filter (where status = 'delivered')::int`.as('delivered'),
          sql<Date | null>`min(created_at) filter (where status = 'pending')`.as('oldest'),
        ]);
      if (endpointId) {
        if (!isUuid(endpointId)) throw AppError.notFound('Webhook endpoint not found');
        query = query.where('endpoint_id', '=', endpointId.toLowerCase());
      }
      const row = await query.executeTakeFirstOrThrow();
      return {
        pending: row.pending,
        failed: row.failed,
        delivered: row.delivered,
        oldestPendingAt: row.oldest ? new Date(row.oldest).toISOString() : null,
      };
    },

    /** Sends one delivery again soon, whatever its state (the same `webhook-id`). */
    async redeliver(deliveryId: string): Promise<{ id: string; status: string }> {
      const row = isUuid(deliveryId)
        ? await db
            .updateTable('webhook_deliveries')
            .set({ status: 'pending', next_attempt_at: sql`now()`, locked_until: null })
            .where('id', '=', deliveryId.toLowerCase())
            .returning(['id', 'status'])
            .executeTakeFirst()
        : undefined;
      if (!row) throw AppError.notFound('Delivery not found');
      return row;
    },

    async watchlistCount(companyId: string): Promise<number> {
      if (!isUuid(companyId)) throw AppError.notFound('Company not found');
      const row = await db
        .selectFrom('watchlist_entries')
        .select(sql<number>`count(*)::int`.as('n'))
        .where('company_id', '=', companyId.toLowerCase())
        .executeTakeFirstOrThrow();
      return row.n;
    },
  };
}

export type WebhooksAdmin = ReturnType<typeof createWebhooksAdmin>;
