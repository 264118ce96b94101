import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Clock } from '../../jobs/clock.js';
import type { ReasonSealer } from '../reports/sealed-reason.js';
import type { ReportAttachments } from '../uploads/attachments.js';
import { disputesRoutes } from './disputes.routes.js';
import { createDisputesService, type DisputesService } from './disputes.service.js';

export async function registerDisputes(
  app: FastifyInstance,
  deps: { db: Kysely<Database>; clock: Clock; responseDays: number; attachments: ReportAttachments; texts: ReasonSealer },
): Promise<DisputesService> {
  const disputes = createDisputesService(deps);
  await app.register(disputesRoutes, { disputes });
  return disputes;
}
