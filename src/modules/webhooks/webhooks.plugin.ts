import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { Crypto } from '../../crypto/load-crypto.js';
import type { Database } from '../../db/schema.js';
import { shippedBankDirectory } from '../../identifiers/normalize.js';
import { createSealedIdentifiers } from '../../identifiers/sealed-identifiers.js';
import type { Clock } from '../../jobs/clock.js';
import { pollWhileBusy } from '../../jobs/poller.js';
import { createWatchlistImports } from '../watchlists/watchlist-imports.js';
import { watchlistImportRoutes } from '../watchlists/watchlist-imports.routes.js';
import { watchlistRoutes } from '../watchlists/watchlists.routes.js';
import { createWatchlistsService } from '../watchlists/watchlists.service.js';
import { createDeliveryWorker, type DeliveryWorker } from './delivery.worker.js';
import { webhookRoutes } from './webhooks.routes.js';
import { createWebhooksService } from './webhooks.service.js';

/**
 * Watchlists, webhook endpoints and the delivery worker. The worker polls every `pollMs` on every
 * instance (SKIP LOCKED shares the work), and runs as the `webhooks.deliver` job too.
 */
export async function registerWebhooks(
  app: FastifyInstance,
  deps: { db: Kysely<Database>; crypto: Crypto; clock: Clock; allowPrivate: boolean; pollMs: number },
): Promise<DeliveryWorker> {
  const { db, crypto, clock, allowPrivate } = deps;
  const identifiers = createSealedIdentifiers({ crypto, banks: shippedBankDirectory() });
  const watchlists = createWatchlistsService({
    db,
    identifiers,
    sealer: crypto.keyring,
    onUnreadable: (err) =>
      app.log.error({ err }, 'a sealed watchlist value did not open; served as null (matches) or marked unreadable (list)'),
  });
  await app.register(watchlistRoutes, { watchlists });
  await app.register(watchlistImportRoutes, { imports: createWatchlistImports({ db, watchlists }) });
  await app.register(webhookRoutes, { webhooks: createWebhooksService({ db, crypto, clock, allowPrivate }) });
  const worker = createDeliveryWorker({ db, crypto, allowPrivate, log: app.log });
  // A full batch goes again at once, otherwise the next pass waits `pollMs`.
  if (deps.pollMs > 0) {
    pollWhileBusy(app, 'webhook delivery', async () => (await worker.runDue(clock.now())) >= worker.batchSize, deps.pollMs);
  }
  return worker;
}
