import multipart from '@fastify/multipart';
import { Type } from 'typebox';
import { companyOf } from '../../http/auth.js';
import { Envelope, ok } from '../../http/envelope.js';
import { documentedOnly, fileOf } from '../../http/multipart.js';
import { errorResponses } from '../../http/openapi.js';
import { DateTime, PageNumber } from '../../http/schema-helpers.js';
import type { RoutesPlugin } from '../../http/types.js';
import type { WatchlistImports } from './watchlist-imports.js';

const PATH = '/api/v1/external/watchlist/imports';
/** A million short rows are some tens of megabytes; a little room for long values. */
const MAX_FILE_BYTES = 256 * 1024 * 1024;

const Import = Type.Object({
  id: Type.String({ format: 'uuid' }),
  status: Type.String({ description: '`running`, `interrupted` (send the file again to resume) or `done`' }),
  processedLines: Type.Integer({ description: 'Lines read so far, the header included; a re-sent file skips them' }),
  importedRows: Type.Integer(),
  failedRows: Type.Integer(),
  createdAt: DateTime(),
  updatedAt: DateTime(),
});
const ImportResponse = Envelope(Type.Object({ import: Import }));
const ImportParams = Type.Object({ id: Type.String({ description: 'Import id (uuid)' }) });
const ErrorsQuery = Type.Object({
  page: Type.Optional(PageNumber),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
});
const ErrorsResponse = Envelope(
  Type.Object({
    data: Type.Array(Type.Object({ line: Type.Integer(), message: Type.String() })),
    meta: Type.Object({ total: Type.Integer(), page: Type.Integer(), limit: Type.Integer() }),
  }),
);
const FileBody = Type.Object(
  {
    file: Type.Unsafe<unknown>({
      type: 'string',
      format: 'binary',
      description:
        'CSV: a first line naming the columns `label`, `value` and optionally `ref` (in any order), then one identifier a line (up to 1,000,000)',
    }),
  },
  { required: ['file'] },
);

/** CSV imports of a watchlist: create, stream the file (again, to resume), progress, per-line errors. */
export const watchlistImportRoutes: RoutesPlugin<{ imports: WatchlistImports }> = async (app, { imports }) => {
  const tags = ['watchlists'];
  const config = { auth: 'company' as const };
  // Registered in this plugin only: everywhere else a multipart body stays a 415.
  await app.register(multipart);

  app.post(
    PATH,
    { config, schema: { tags, summary: 'Start a CSV import of identifiers to watch', response: { 201: ImportResponse } } },
    async (request, reply) =>
      reply.code(201).send(ok({ import: await imports.create(companyOf(request).companyId) }, 'Import created')),
  );

  app.post(
    `${PATH}/:id/file`,
    {
      config,
      validatorCompiler: documentedOnly,
      schema: {
        tags,
        summary: 'Stream the CSV file (send it again after an interruption: the lines already read are skipped)',
        description:
          'Answers when the file is read. Each line is added like an item of `POST /api/v1/external/watchlist`; a bad line is reported by `GET .../errors` and never stops the file. Progress: `GET .../imports/{id}` from another connection.',
        consumes: ['multipart/form-data'],
        params: ImportParams,
        body: FileBody,
        response: { 200: ImportResponse, ...errorResponses(404, 409) },
      },
    },
    async (request) => {
      const { id } = request.params as { id: string };
      const part = await fileOf(request, MAX_FILE_BYTES);
      const result = await imports.receive(companyOf(request).companyId, id, part.file, part.noOtherFile);
      return ok({ import: result }, 'Import file read');
    },
  );

  app.get(
    `${PATH}/:id`,
    {
      config,
      schema: {
        tags,
        summary: 'An import and its progress',
        params: ImportParams,
        response: { 200: ImportResponse, ...errorResponses(404) },
      },
    },
    async (request) => ok({ import: await imports.get(companyOf(request).companyId, request.params.id) }, 'Import fetched'),
  );

  app.get(
    `${PATH}/:id/errors`,
    {
      config,
      schema: {
        tags,
        summary: "The import's bad lines: line number and why (never the value)",
        params: ImportParams,
        querystring: ErrorsQuery,
        response: { 200: ErrorsResponse, ...errorResponses(404) },
      },
    },
    async (request) => {
      const { page = 1, limit = 100 } = request.query;
      return ok(await imports.errors(companyOf(request).companyId, request.params.id, { page, limit }), 'Import errors fetched');
    },
  );
};
