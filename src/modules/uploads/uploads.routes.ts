import multipart from '@fastify/multipart';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { companyOf } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { AppError } from '../../http/errors.js';
import { documentedOnly, multipartError } from '../../http/multipart.js';
import { errorResponses } from '../../http/openapi.js';
import { clientAddressRateLimit } from '../../http/rate-limit.js';
import type { RoutesPlugin } from '../../http/types.js';
import { PUBLIC_REPORTS_COMPANY_ID } from '../companies/public-reports-company.js';
import { DOWNLOAD_PATH, type UploadOrigin, type UploadUrls } from './upload-urls.js';
import { DownloadQuery, FileBytes, UploadBody, UploadDetailResponse, UploadIdParams, UploadResponse } from './uploads.schemas.js';
import type { ReceivedFile, UploadsService } from './uploads.service.js';

/** Room for the multipart framing around the file (boundaries, part headers). */
const MULTIPART_OVERHEAD = 16 * 1024;
/**
 * After a 413 the rest of the body is read and dropped (nothing is kept), so the client, still
 * sending, reads a clean answer and the connection stays usable; past this much more, it is cut off.
 */
const DISCARD_ALLOWANCE = 16 * 1024 * 1024;
const HOUR_MS = 60 * 60 * 1000;
/** Downloads are public (the signature is the permission) and heavy, so each address has a ceiling. */
const DOWNLOADS_PER_MINUTE = 120;

export interface UploadsRoutesDeps {
  uploads: UploadsService;
  urls: UploadUrls;
  maxBytes: number;
  publicUploadsPerHour: number;
}

/** Evidence uploads (company and public), a company's view of its upload, and signed downloads. */
export const uploadsRoutes: RoutesPlugin<UploadsRoutesDeps> = async (app, deps) => {
  const { uploads, urls, maxBytes } = deps;
  // Registered in this plugin only: everywhere else a multipart body stays a 415.
  await app.register(multipart);

  async function receive(request: FastifyRequest, reply: FastifyReply): Promise<ReceivedFile> {
    if (!request.isMultipart()) {
      throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the file as multipart/form-data, in the field "file"');
    }
    const declared = Number(request.headers['content-length']);
    const lengthHint = Number.isSafeInteger(declared) && declared > 0 ? declared : undefined;
    const cutOff = maxBytes + MULTIPART_OVERHEAD + DISCARD_ALLOWANCE;
    if (lengthHint !== undefined && lengthHint > maxBytes + MULTIPART_OVERHEAD) {
      // Declared too large: answered before reading; Node drops the body, unless it is not worth reading.
      if (lengthHint > cutOff) reply.header('connection', 'close');
      throw uploads.tooLarge();
    }
    // One part only, and busboy hands over at most maxBytes + 1 bytes of it: enough to know it is too large.
    const parts = request.parts({ limits: { fileSize: maxBytes + 1, files: 1, fields: 0, parts: 1 } });
    const stopCounting = cutOffAfter(request, cutOff);
    let file: ReceivedFile | undefined;
    try {
      for await (const part of parts) {
        if (part.type !== 'file' || part.fieldname !== 'file') {
          throw AppError.validation([{ field: 'file', message: 'send the file in the multipart field "file"' }]);
        }
        file = await uploads.receive(part.file);
      }
    } catch (error) {
      // Whatever is left of the body is read and dropped, so the connection stays usable.
      request.raw.unpipe();
      request.raw.resume();
      throw multipartError(error);
    } finally {
      stopCounting();
    }
    if (!file)
      throw AppError.validation([{ field: 'file', message: 'is required: send one file in the multipart field "file"' }]);
    return file;
  }

  const uploadSchema = (summary: string, description: string) => ({
    summary,
    description,
    consumes: ['multipart/form-data'],
    body: UploadBody,
    response: { 201: UploadResponse },
  });

  const upload = (origin: UploadOrigin) => async (request: FastifyRequest, reply: FastifyReply) => {
    const file = await receive(request, reply);
    const companyId = origin === 'external' ? companyOf(request).companyId : PUBLIC_REPORTS_COMPANY_ID;
    return reply.code(201).send(ok(await uploads.save(companyId, origin, file), 'File uploaded successfully'));
  };

  app.post(
    '/api/v1/external/uploads',
    {
      config: { auth: 'company' },
      validatorCompiler: documentedOnly,
      schema: {
        tags: ['uploads'],
        ...uploadSchema(
          'Upload an evidence file',
          `Multipart, one file in the field \`file\`: PDF, PNG, JPEG or WebP, at most ${maxBytes} bytes. Put the returned \`url\` in a report's \`attachments\` within 24 hours, or the file is removed.`,
        ),
      },
    },
    upload('external'),
  );

  app.post(
    '/api/v1/public/uploads',
    {
      config: {
        // A refused file (not evidence, too big) is given back: a victim who picked the wrong file
        // first must not be out of uploads for an hour.
        rateLimit: clientAddressRateLimit({ max: deps.publicUploadsPerHour, timeWindow: HOUR_MS, countsOnlyAccepted: true }),
      },
      validatorCompiler: documentedOnly,
      schema: {
        tags: ['public reports'],
        ...uploadSchema(
          'Upload an evidence file for a public report (no key)',
          `As the company upload, for \`POST /api/v1/public/reports\`; limited to ${deps.publicUploadsPerHour} accepted files an hour per client address (a refused one is not counted).`,
        ),
      },
    },
    upload('public'),
  );

  app.get(
    '/api/v1/external/uploads/:id',
    {
      config: { auth: 'company' },
      schema: {
        tags: ['uploads'],
        summary: 'Read one of the company’s uploads, with a fresh download link',
        params: UploadIdParams,
        response: { 200: UploadDetailResponse, ...errorResponses(404) },
      },
    },
    async (request) => ok(await uploads.describe(companyOf(request).companyId, request.params.id), 'Upload fetched successfully'),
  );

  app.get(
    `${DOWNLOAD_PATH}/:id`,
    {
      config: { rateLimit: clientAddressRateLimit({ max: DOWNLOADS_PER_MINUTE }) },
      schema: {
        tags: ['uploads'],
        summary: 'Download an attachment through its signed link (no key)',
        description:
          'The links in report bodies carry `expires` and `signature`; an expired or altered link is a 403. Served as an attachment with `X-Content-Type-Options: nosniff`.',
        params: UploadIdParams,
        querystring: DownloadQuery,
        produces: ['application/pdf', 'image/png', 'image/jpeg', 'image/webp'],
        response: { 200: FileBytes, ...errorResponses(403, 404) },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const check = urls.checkDownload(id, request.query.expires, request.query.signature);
      if (check === 'expired')
        throw new AppError('FORBIDDEN', 'This download link has expired; fetch the report again for a fresh one');
      if (check !== 'valid') throw new AppError('FORBIDDEN', 'This download link is not valid');
      const file = await uploads.open(id);
      return (
        reply
          .header('content-type', file.contentType)
          .header('content-disposition', `attachment; filename="${file.fileName}"`)
          .header('x-content-type-options', 'nosniff')
          // Should a browser render it anyway, nothing in it may run or load anything.
          .header('content-security-policy', "sandbox; default-src 'none'")
          .header('cache-control', 'private, no-store')
          .send(file.bytes)
      );
    },
  );
};

/** Multipart's own failures (limits, malformed framing) as our errors. */
/** Counts the request's bytes and drops the connection of a client that keeps sending far past the limit. */
function cutOffAfter(request: FastifyRequest, limit: number): () => void {
  let seen = 0;
  const onData = (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > limit) request.raw.destroy();
  };
  request.raw.on('data', onData);
  return () => {
    // Still counting while a refused body is drained; the listener goes with the request.
    if (request.raw.readableEnded) request.raw.off('data', onData);
  };
}
