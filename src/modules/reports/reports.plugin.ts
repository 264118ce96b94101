import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { Crypto } from '../../crypto/load-crypto.js';
import type { Database } from '../../db/schema.js';
import type { AsyncCommits } from '../../db/wal-flusher.js';
import { AppError } from '../../http/errors.js';
import { shippedBankDirectory } from '../../identifiers/normalize.js';
import { createSealedIdentifiers } from '../../identifiers/sealed-identifiers.js';
import { auditRoutes } from '../audit/audit.routes.js';
import { searchRoutes } from '../search/search.routes.js';
import { createSearchService } from '../search/search.service.js';
import { purgeExpiredIdempotencyKeys } from './idempotency.js';
import { reportsRoutes } from './reports.routes.js';
import { createReportsService } from './reports.service.js';
import { createSubmissionsService } from './submissions.service.js';

/** How often stored idempotent responses older than their 24 h window are removed. */
const PURGE_EVERY_MS = 60 * 60 * 1000;

/** Until the upload endpoint exists no URL can have come from it, so any attachment is refused. */
const noUploadsYet = {
  async resolve(urls: string[]): Promise<string[]> {
    if (urls.length === 0) return [];
    throw AppError.validation(
      urls.map((_url, i) => ({
        field: `attachments/${i}`,
        message: 'uploads are not available yet; send the report without attachments',
      })),
    );
  },
};

/** Reports, search and the audit trail: the services, their routes, and their housekeeping. */
export async function registerReports(
  app: FastifyInstance,
  deps: { db: Kysely<Database>; crypto: Crypto; asyncCommits: Pick<AsyncCommits, 'note'> },
) {
  const { db } = deps;
  const identifiers = createSealedIdentifiers({ crypto: deps.crypto, banks: shippedBankDirectory() });
  const reports = createReportsService({ db, identifiers, responses: deps.crypto.keyring, attachments: noUploadsYet });
  const submissions = createSubmissionsService({ db, identifiers, reports });

  await app.register(reportsRoutes, { reports, submissions });
  await app.register(searchRoutes, {
    search: createSearchService({ db, identifiers, asyncCommits: deps.asyncCommits }),
  });
  await app.register(auditRoutes, { db });

  const purge = setInterval(() => {
    purgeExpiredIdempotencyKeys(db).catch((err: unknown) => app.log.warn({ err }, 'could not purge expired idempotency keys'));
  }, PURGE_EVERY_MS);
  purge.unref();
  app.addHook('onClose', async () => clearInterval(purge));
}
