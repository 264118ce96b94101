import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { Crypto } from '../../crypto/load-crypto.js';
import type { Database } from '../../db/schema.js';
import type { AsyncCommits } from '../../db/wal-flusher.js';
import { shippedBankDirectory } from '../../identifiers/normalize.js';
import { createSealedIdentifiers } from '../../identifiers/sealed-identifiers.js';
import { auditRoutes } from '../audit/audit.routes.js';
import { searchRoutes } from '../search/search.routes.js';
import { createSearchService } from '../search/search.service.js';
import type { ReportAttachments } from '../uploads/attachments.js';
import { purgeExpiredIdempotencyKeys } from './idempotency.js';
import { reportsRoutes } from './reports.routes.js';
import { createReportsService } from './reports.service.js';
import { createSubmissionsService } from './submissions.service.js';

/** How often stored idempotent responses older than their 24 h window are removed. */
const PURGE_EVERY_MS = 60 * 60 * 1000;

/**
 * Reports, search and the audit trail: the services, their routes, and their housekeeping.
 * `attachments` checks a company's upload URLs and signs the download links of every report body.
 */
export async function registerReports(
  app: FastifyInstance,
  deps: { db: Kysely<Database>; crypto: Crypto; attachments: ReportAttachments; asyncCommits: Pick<AsyncCommits, 'note'> },
) {
  const { db, attachments } = deps;
  const identifiers = createSealedIdentifiers({ crypto: deps.crypto, banks: shippedBankDirectory() });
  const reports = createReportsService({ db, identifiers, responses: deps.crypto.keyring, attachments });
  const submissions = createSubmissionsService({ db, identifiers, reports, attachments });

  await app.register(reportsRoutes, { reports, submissions });
  await app.register(searchRoutes, {
    search: createSearchService({ db, identifiers, attachments, asyncCommits: deps.asyncCommits }),
  });
  await app.register(auditRoutes, { db });

  const purge = setInterval(() => {
    purgeExpiredIdempotencyKeys(db).catch((err: unknown) => app.log.warn({ err }, 'could not purge expired idempotency keys'));
  }, PURGE_EVERY_MS);
  purge.unref();
  app.addHook('onClose', async () => clearInterval(purge));
}
