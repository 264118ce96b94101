import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { Crypto } from '../../crypto/load-crypto.js';
import type { Engine } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { AsyncCommits } from '../../db/wal-flusher.js';
import { shippedBankDirectory } from '../../identifiers/normalize.js';
import { createSealedIdentifiers } from '../../identifiers/sealed-identifiers.js';
import { SERVING_LOOP_SHARE } from '../../jobs/loop-share.js';
import { pollWhileBusy } from '../../jobs/poller.js';
import { createScreeningWorker, type ScreeningWorker } from './screening.worker.js';
import { releaseAllLeases } from './screenings.repository.js';
import { screeningRoutes } from './screenings.routes.js';
import { createScreeningsService } from './screenings.service.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The screening worker of this instance (tests drive it a chunk at a time). */
    screenings: ScreeningWorker;
  }
}

/**
 * Screening jobs: the routes, and the worker every instance runs. It polls every `pollMs` and,
 * while there is work, goes again at once; it also runs as the `screenings.run` job.
 */
export async function registerScreenings(
  app: FastifyInstance,
  deps: {
    db: Kysely<Database>;
    crypto: Crypto;
    asyncCommits: AsyncCommits;
    riskHalfLifeDays: number;
    pollMs: number;
    /** The most rows a second a job is screened at (REDFLAG_SCREENING_ROWS_PER_SECOND); 0 for no cap. */
    rowsPerSecond: number;
    engine: Engine;
  },
): Promise<ScreeningWorker> {
  const { db, crypto } = deps;
  await app.register(screeningRoutes, {
    screenings: createScreeningsService({
      db,
      keyring: crypto.keyring,
      loopShare: SERVING_LOOP_SHARE,
      rowsPerSecond: deps.rowsPerSecond,
    }),
  });
  const worker = createScreeningWorker({
    db,
    keyring: crypto.keyring,
    identifiers: createSealedIdentifiers({ crypto, banks: shippedBankDirectory() }),
    asyncCommits: deps.asyncCommits,
    riskHalfLifeDays: deps.riskHalfLifeDays,
    loopShare: SERVING_LOOP_SHARE,
    rowsPerSecond: deps.rowsPerSecond,
  });
  app.decorate('screenings', worker);
  // Embedded: this process holds the data directory alone, so a lease still set was left by one
  // killed mid-chunk; its job resumes now instead of after the lease lapses.
  if (deps.engine === 'embedded') app.addHook('onReady', () => releaseAllLeases(db));
  if (deps.pollMs > 0) pollWhileBusy(app, 'screening', async () => (await worker.runDue()) > 0, deps.pollMs);
  return worker;
}
