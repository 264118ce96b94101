import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { SealedValueError } from '../../crypto/errors.js';
import type { Crypto } from '../../crypto/load-crypto.js';
import type { Database } from '../../db/schema.js';
import { shippedBankDirectory } from '../../identifiers/normalize.js';
import { createSealedIdentifiers } from '../../identifiers/sealed-identifiers.js';
import { createSafelistCheck } from '../safelist/safelist.service.js';
import type { ReportAttachments } from '../uploads/attachments.js';
import { namedBankRoutes } from './named-bank.routes.js';
import { createNamedBankService } from './named-bank.service.js';
import { publicReportsRoutes } from './public-reports.routes.js';
import { createPublicReportsService } from './public-reports.service.js';

/** Public reports: the intake, moderation, what the bank they name reads, and the service search's public list comes from. */
export async function registerPublicReports(
  app: FastifyInstance,
  deps: { db: Kysely<Database>; crypto: Crypto; attachments: ReportAttachments; reportsPerHour: number },
) {
  const identifiers = createSealedIdentifiers({ crypto: deps.crypto, banks: shippedBankDirectory() });
  const onUnreadable = (err: SealedValueError) =>
    app.log.error({ err }, 'a sealed identifier did not open; served marked unreadable');
  const publicReports = createPublicReportsService({
    db: deps.db,
    identifiers,
    keyring: deps.crypto.keyring,
    attachments: deps.attachments,
    safelist: createSafelistCheck(deps.db),
    onUnreadable,
  });
  await app.register(publicReportsRoutes, { publicReports, reportsPerHour: deps.reportsPerHour });
  await app.register(namedBankRoutes, { namedBank: createNamedBankService({ db: deps.db, identifiers, onUnreadable }) });
}
