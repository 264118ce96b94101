import { Readable } from 'node:stream';
import multipart from '@fastify/multipart';
import { Type } from 'typebox';
import { companyOf } from '../../http/auth.js';
import { Envelope, ok } from '../../http/envelope.js';
import { documentedOnly, fileOf } from '../../http/multipart.js';
import { errorResponses } from '../../http/openapi.js';
import { DateTime, Nullable, StringEnum } from '../../http/schema-helpers.js';
import type { RoutesPlugin } from '../../http/types.js';
import { MAX_FILE_BYTES } from './screening-file.js';
import type { ScreeningsService } from './screenings.service.js';

const PATH = '/api/v1/external/screenings';

const Job = Type.Object({
  id: Type.String({ format: 'uuid' }),
  status: StringEnum(['queued', 'running', 'done', 'failed'] as const),
  rowsRead: Type.Integer({ description: 'Rows of the file stored so far (the header is not a row)' }),
  rowsScreened: Type.Integer(),
  matches: Type.Integer({ description: 'Rows that matched a visible report or public report' }),
  errors: Type.Integer({ description: 'Rows rejected (not valid CSV, unknown type, a value that cannot be normalised)' }),
  fileComplete: Type.Boolean({ description: 'True once the whole file is in' }),
  rowsPerSecond: Nullable(Type.Integer()),
  estimatedFinishAt: Nullable(DateTime('From the pace so far, once the whole file is in')),
  failure: Nullable(Type.String()),
  createdAt: DateTime(),
  startedAt: Nullable(DateTime()),
  finishedAt: Nullable(DateTime()),
});
const JobResponse = Envelope(Type.Object({ job: Job }));
const JobParams = Type.Object({ id: Type.String({ description: 'Screening job id (uuid)' }) });
const FileBody = Type.Object(
  {
    file: Type.Unsafe<unknown>({
      type: 'string',
      format: 'binary',
      description: 'CSV: a header line `label,value,ref`, then one identifier a line (ref optional), up to 10,000,000 rows',
    }),
  },
  { required: ['file'] },
);
const Csv = { 200: Type.String({ description: 'text/csv' }), ...errorResponses(404) };

/** Screening a customer file: upload it, follow the job, read the matched and the rejected rows as CSV. */
export const screeningRoutes: RoutesPlugin<{ screenings: ScreeningsService }> = async (app, { screenings }) => {
  const tags = ['screenings'];
  const config = { auth: 'company' as const };
  // Registered in this plugin only: everywhere else a multipart body stays a 415.
  await app.register(multipart);

  app.post(
    PATH,
    {
      config,
      validatorCompiler: documentedOnly,
      schema: {
        tags,
        summary: 'Screen a customer file',
        description:
          'Streams the CSV into a job (stored sealed, a chunk at a time) and answers 202 once the whole file is in; screening starts while it uploads and goes on in the background. Follow it with `GET .../screenings/{id}`. Each screened row is audited (action `screen`).',
        consumes: ['multipart/form-data'],
        body: FileBody,
        response: { 202: JobResponse, ...errorResponses(415) },
      },
    },
    async (request, reply) => {
      const part = await fileOf(request, MAX_FILE_BYTES);
      const { companyId, keyId, user } = companyOf(request);
      const created = await screenings.create({ companyId, keyId, userId: user?.userId ?? null }).catch((error: unknown) => {
        // Refused before the file is read (one job at a time): the upload is let through unread, so
        // the 409 arrives on a connection the client can go on using (unread, it was reset).
        part.file.resume();
        throw error;
      });
      const job = await screenings.receive(created, companyId, part.file, part.noOtherFile);
      return reply.code(202).send(ok({ job }, 'Screening accepted'));
    },
  );

  app.get(
    PATH,
    {
      config,
      schema: {
        tags,
        summary: "The company's twenty newest screening jobs, newest first",
        response: { 200: Envelope(Type.Object({ jobs: Type.Array(Job) })) },
      },
    },
    async (request) => ok({ jobs: await screenings.list(companyOf(request).companyId) }, 'Screening jobs fetched'),
  );

  app.get(
    `${PATH}/:id`,
    {
      config,
      schema: {
        tags,
        summary: 'A screening job and its progress',
        params: JobParams,
        response: { 200: JobResponse, ...errorResponses(404) },
      },
    },
    async (request) =>
      ok({ job: await screenings.get(companyOf(request).companyId, request.params.id) }, 'Screening job fetched'),
  );

  const csv = (name: 'matches' | 'errors', summary: string) =>
    app.get(
      `${PATH}/:id/${name}.csv`,
      { config, schema: { tags, summary, params: JobParams, produces: ['text/csv'], response: Csv } },
      async (request, reply) => {
        const { companyId } = companyOf(request);
        const lines =
          name === 'matches'
            ? screenings.matchesCsv(companyId, request.params.id)
            : screenings.errorsCsv(companyId, request.params.id);
        // The first page is read before answering, so an unknown job is a 404 in the envelope, not a broken CSV.
        const first = await lines.next();
        const body = Readable.from(
          (async function* () {
            if (!first.done) yield first.value;
            yield* lines;
          })(),
        );
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="screening-${request.params.id}-${name}.csv"`)
          .send(body as never);
      },
    );
  csv('matches', 'The matched rows: line, label, value, ref and the figures each matched with');
  csv('errors', 'The rejected rows: line and why, never the value');
};
