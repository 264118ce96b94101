import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { Crypto } from '../../crypto/load-crypto.js';
import type { Database } from '../../db/schema.js';
import { shippedBankDirectory } from '../../identifiers/normalize.js';
import { createSealedIdentifiers } from '../../identifiers/sealed-identifiers.js';
import { createSafelistCheck } from '../safelist/safelist.service.js';
import type { ReportAttachments } from '../uploads/attachments.js';
import { publicReportsRoutes } from './public-reports.routes.js';
import { createPublicReportsService } from './public-reports.service.js';

/** Public reports: the intake, moderation, and the service search's public list comes from. */
export async function registerPublicReports(
  app: FastifyInstance,
  deps: { db: Kysely<Database>; crypto: Crypto; attachments: ReportAttachments; reportsPerHour: number },
) {
  const identifiers = createSealedIdentifiers({ crypto: deps.crypto, banks: shippedBankDirectory() });
  const publicReports = createPublicReportsService({
    db: deps.db,
    identifiers,
    keyring: deps.crypto.keyring,
    attachments: deps.attachments,
    safelist: createSafelistCheck(deps.db),
    onUnreadable: (err) => app.log.error({ err }, 'a sealed identifier did not open; served marked unreadable'),
  });
  await app.register(publicReportsRoutes, { publicReports, reportsPerHour: deps.reportsPerHour });
}
