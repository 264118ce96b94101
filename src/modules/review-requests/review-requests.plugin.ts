import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { Crypto } from '../../crypto/load-crypto.js';
import type { Database } from '../../db/schema.js';
import { shippedBankDirectory } from '../../identifiers/normalize.js';
import { reviewRequestsRoutes } from './review-requests.routes.js';
import { createReviewRequestsService } from './review-requests.service.js';

/** Review requests: the person wrongly listed asks the operators to look (decision 0122). */
export async function registerReviewRequests(
  app: FastifyInstance,
  deps: { db: Kysely<Database>; crypto: Crypto; requestsPerHour: number; now: () => Date },
) {
  const reviewRequests = createReviewRequestsService({
    db: deps.db,
    keyring: deps.crypto.keyring,
    banks: shippedBankDirectory(),
    now: deps.now,
  });
  await app.register(reviewRequestsRoutes, { reviewRequests, requestsPerHour: deps.requestsPerHour });
}
