import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { type Crypto, pseudonymKey } from '../../crypto/load-crypto.js';
import type { Database } from '../../db/schema.js';
import type { AsyncCommits } from '../../db/wal-flusher.js';
import { shippedBankDirectory } from '../../identifiers/normalize.js';
import { createSealedIdentifiers } from '../../identifiers/sealed-identifiers.js';
import type { Clock } from '../../jobs/clock.js';
import { auditRoutes } from '../audit/audit.routes.js';
import { createAuditService } from '../audit/audit.service.js';
import { createAuditPseudonyms } from '../audit/audit-pseudonyms.js';
import { createSafelistCheck } from '../safelist/safelist.service.js';
import { searchRoutes } from '../search/search.routes.js';
import { batchConcurrencyFor, createSearchService } from '../search/search.service.js';
import { searchesInFlightFor } from '../search/search-coalescer.js';
import type { ReportAttachments } from '../uploads/attachments.js';
import { listingRoutes } from './listing.routes.js';
import { createListingService } from './listing.service.js';
import { reportsRoutes } from './reports.routes.js';
import { createReportsService } from './reports.service.js';
import { createSubmissionsService } from './submissions.service.js';

/**
 * Reports, search, listing renewal and the audit trail: the services and their routes (housekeeping is in app.ts's jobs).
 * `attachments` checks a company's upload URLs and signs the download links of every report body.
 */
export async function registerReports(
  app: FastifyInstance,
  deps: {
    db: Kysely<Database>;
    crypto: Crypto;
    attachments: ReportAttachments;
    asyncCommits: Pick<AsyncCommits, 'note'>;
    instanceId: string;
    clock: Clock;
    listingDays: number;
    riskHalfLifeDays: number;
    /** This process's database connections (1 on the embedded engine): search statements leave one to other queries. */
    poolSize: number;
    /** How long a search may wait for a statement slot (the pool's connection wait; none on the embedded engine). */
    searchWaitLimitMs: number | undefined;
  },
) {
  const { db, attachments } = deps;
  const identifiers = createSealedIdentifiers({ crypto: deps.crypto, banks: shippedBankDirectory() });
  const reports = createReportsService({
    clock: deps.clock,
    db,
    identifiers,
    responses: deps.crypto.keyring,
    reasons: deps.crypto.keyring,
    requestDigest: deps.crypto.requestDigest,
    attachments,
    instanceId: deps.instanceId,
    safelist: createSafelistCheck(db),
  });
  const submissions = createSubmissionsService({
    listingDays: deps.listingDays,
    db,
    identifiers,
    reports,
    reasons: deps.crypto.keyring,
    attachments,
    onUnreadable: (err) => app.log.error({ err }, 'a sealed identifier did not open; served marked unreadable'),
  });

  await app.register(reportsRoutes, { reports, submissions });
  await app.register(searchRoutes, {
    search: createSearchService({
      db,
      identifiers,
      attachments,
      asyncCommits: deps.asyncCommits,
      riskHalfLifeDays: deps.riskHalfLifeDays,
      batchConcurrency: batchConcurrencyFor(deps.poolSize),
      searchesInFlight: searchesInFlightFor(deps.poolSize),
      searchWaitLimitMs: deps.searchWaitLimitMs,
    }),
  });
  await app.register(auditRoutes, {
    audit: createAuditService({ db, pseudonyms: createAuditPseudonyms(pseudonymKey(deps.crypto)) }),
  });

  const listing = createListingService({ db, clock: deps.clock, listingDays: deps.listingDays, texts: deps.crypto.keyring });
  await app.register(listingRoutes, { listing, submissions });
  return { reports, listing, identifiers };
}
