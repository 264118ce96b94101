import { type Insertable, type Kysely, type Selectable, sql, type Transaction, type Updateable } from 'kysely';
import type { Database, WebhookEndpointsTable } from '../../db/schema.js';

type Db = Kysely<Database> | Transaction<Database>;

export type EndpointRow = Selectable<WebhookEndpointsTable>;

/** A company's endpoint by id (another company's is simply not found). */
export function findEndpoint(db: Db, companyId: string, id: string): Promise<EndpointRow | undefined> {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('id', '=', id)
    .where('company_id', '=', companyId)
    .executeTakeFirst();
}

/** The same, under its row lock (FOR UPDATE): for a change built from the endpoint as it is. */
export function lockEndpoint(trx: Transaction<Database>, companyId: string, id: string): Promise<EndpointRow | undefined> {
  return trx
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('id', '=', id)
    .where('company_id', '=', companyId)
    .forUpdate()
    .executeTakeFirst();
}

/** Changes an endpoint and stamps `updated_at`; undefined when it is gone. */
export function updateEndpoint(db: Db, id: string, set: Updateable<WebhookEndpointsTable>): Promise<EndpointRow | undefined> {
  return db
    .updateTable('webhook_endpoints')
    .set({ ...set, updated_at: sql`now()` })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export async function countEndpoints(db: Db, companyId: string): Promise<number> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select(sql<number>`count(*)::int`.as('n'))
    .where('company_id', '=', companyId)
    .executeTakeFirstOrThrow();
  return row.n;
}

export function insertEndpoint(db: Db, values: Insertable<WebhookEndpointsTable>): Promise<EndpointRow> {
  return db.insertInto('webhook_endpoints').values(values).returningAll().executeTakeFirstOrThrow();
}

/** A company's endpoints, oldest first. */
export function listEndpoints(db: Db, companyId: string): Promise<EndpointRow[]> {
  return db.selectFrom('webhook_endpoints').selectAll().where('company_id', '=', companyId).orderBy('created_at').execute();
}

/** Whether the endpoint was there to delete (false when another removal got there first). */
export async function deleteEndpoint(db: Db, id: string): Promise<boolean> {
  const gone = await db.deleteFrom('webhook_endpoints').where('id', '=', id).executeTakeFirst();
  return gone.numDeletedRows !== 0n;
}

/** A page of an endpoint's deliveries, newest first, each with its event's id and type. */
export function listDeliveries(db: Db, endpointId: string, page: { limit: number; offset: number }) {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_events as e', 'e.id', 'd.event_id')
    .select([
      'd.id',
      'd.status',
      'd.attempts',
      'd.next_attempt_at',
      'd.delivered_at',
      'd.created_at',
      'e.id as event_id',
      'e.type',
    ])
    .where('d.endpoint_id', '=', endpointId)
    .orderBy('d.created_at', 'desc')
    .orderBy('d.id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

export async function countDeliveries(db: Db, endpointId: string): Promise<number> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select(sql<number>`count(*)::int`.as('n'))
    .where('endpoint_id', '=', endpointId)
    .executeTakeFirstOrThrow();
  return row.n;
}

/** The attempts of these deliveries, by delivery then attempt (no query for none). */
export async function listAttempts(db: Db, deliveryIds: readonly string[]) {
  if (deliveryIds.length === 0) return [];
  return db
    .selectFrom('webhook_attempts')
    .selectAll()
    .where('delivery_id', 'in', deliveryIds)
    .orderBy('delivery_id')
    .orderBy('attempt')
    .execute();
}

/** Puts an endpoint's delivery back to pending, due at `at` and unclaimed; undefined when it is not the endpoint's. */
export function requeueDelivery(
  db: Db,
  endpointId: string,
  deliveryId: string,
  at: Date,
): Promise<{ id: string; status: string } | undefined> {
  return db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', next_attempt_at: at, locked_until: null })
    .where('id', '=', deliveryId)
    .where('endpoint_id', '=', endpointId)
    .returning(['id', 'status'])
    .executeTakeFirst();
}
