import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { Config } from '../../config.js';
import type { Crypto } from '../../crypto/load-crypto.js';
import type { Database } from '../../db/schema.js';
import { createReportAttachments, type ReportAttachments } from './attachments.js';
import type { BlobStore } from './storage/blob-store.js';
import { createDatabaseBlobStore } from './storage/database-blob-store.js';
import { createUploadUrls } from './upload-urls.js';
import { uploadsRoutes } from './uploads.routes.js';
import { createUploadsService, type UploadsService } from './uploads.service.js';

/** How often uploads left unattached for 24 hours are looked for. */
const SWEEP_EVERY_MS = 60 * 60 * 1000;

export interface Uploads {
  service: UploadsService;
  /** For company reports: URLs from `POST /api/v1/external/uploads` of the same company. */
  companyAttachments: ReportAttachments;
  /** For public reports: URLs from `POST /api/v1/public/uploads`. */
  publicAttachments: ReportAttachments;
}

/** Uploads, signed downloads and the sweeper; hands back what reports need to attach files. */
export async function registerUploads(
  app: FastifyInstance,
  deps: {
    db: Kysely<Database>;
    crypto: Crypto;
    config: Pick<Config, 'publicUrl' | 'uploadMaxBytes' | 'attachmentUrlTtlSeconds' | 'publicUploadsPerHour'>;
    store?: BlobStore;
  },
): Promise<Uploads> {
  const { db, config } = deps;
  const urls = createUploadUrls({
    publicUrl: config.publicUrl,
    signer: deps.crypto.urlSigner,
    ttlSeconds: config.attachmentUrlTtlSeconds,
  });
  const service = createUploadsService({
    db,
    store: deps.store ?? createDatabaseBlobStore(db),
    urls,
    maxBytes: config.uploadMaxBytes,
  });
  await app.register(uploadsRoutes, {
    uploads: service,
    urls,
    maxBytes: config.uploadMaxBytes,
    publicUploadsPerHour: config.publicUploadsPerHour,
  });

  const runSweep = () =>
    service
      .sweep()
      .then((removed) => removed > 0 && app.log.info({ removed }, 'removed uploads left unattached for 24 hours'))
      .catch((err: unknown) => app.log.warn({ err }, 'could not remove unattached uploads'));
  // Also soon after start (with jitter, so instances started together do not sweep together):
  // an instance restarted more often than hourly would otherwise never sweep.
  const first = setTimeout(runSweep, 5_000 + Math.random() * 55_000);
  const sweep = setInterval(runSweep, SWEEP_EVERY_MS);
  first.unref();
  sweep.unref();
  app.addHook('onClose', async () => {
    clearTimeout(first);
    clearInterval(sweep);
  });

  return {
    service,
    companyAttachments: createReportAttachments({ db, urls, origin: 'external' }),
    publicAttachments: createReportAttachments({ db, urls, origin: 'public' }),
  };
}
