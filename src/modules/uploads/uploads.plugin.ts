import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { Config } from '../../config.js';
import { type Crypto, evidenceKey } from '../../crypto/load-crypto.js';
import type { Database } from '../../db/schema.js';
import { createReportAttachments, type ReportAttachments } from './attachments.js';
import type { BlobStore } from './storage/blob-store.js';
import { createDatabaseBlobStore } from './storage/database-blob-store.js';
import { createUploadUrls } from './upload-urls.js';
import { uploadsRoutes } from './uploads.routes.js';
import { createUploadsService, type UploadsService } from './uploads.service.js';

export interface Uploads {
  service: UploadsService;
  /** For company reports: URLs from `POST /api/v1/external/uploads` of the same company. */
  companyAttachments: ReportAttachments;
  /** For public reports: URLs from `POST /api/v1/public/uploads`. */
  publicAttachments: ReportAttachments;
}

/** Uploads and signed downloads; hands back what reports need to attach files (the sweep is a job in app.ts). */
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
    evidenceKey: evidenceKey(deps.crypto),
  });
  await service.keyLegacyHashes();
  await app.register(uploadsRoutes, {
    uploads: service,
    urls,
    maxBytes: config.uploadMaxBytes,
    publicUploadsPerHour: config.publicUploadsPerHour,
  });

  return {
    service,
    companyAttachments: createReportAttachments({ db, urls, origin: 'external' }),
    publicAttachments: createReportAttachments({ db, urls, origin: 'public' }),
  };
}
