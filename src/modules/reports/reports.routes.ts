import { Type } from 'typebox';
import { actorOf, companyActorOf } from '../../http/auth.js';
import { ok, schemaFieldErrors } from '../../http/envelope.js';
import { AppError } from '../../http/errors.js';
import { errorResponses } from '../../http/openapi.js';
import type { RoutesPlugin } from '../../http/types.js';
import { withValueErrors } from './report-precheck.js';
import {
  CreatedReportResponse,
  CreateReportBody,
  ExitBody,
  ReportIdParams,
  ReportResponse,
  SubmissionsQuery,
  SubmissionsResponse,
  UpdateDraftBody,
} from './reports.schemas.js';
import type { ReportsService } from './reports.service.js';
import type { SubmissionsService } from './submissions.service.js';

const SUBMISSIONS = '/api/v1/external/reports/submissions';
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

export const reportsRoutes: RoutesPlugin<{ reports: ReportsService; submissions: SubmissionsService }> = async (
  app,
  { reports, submissions },
) => {
  app.post(
    '/api/v1/external/reports',
    {
      config: { auth: 'company' },
      schema: {
        tags: ['reports'],
        summary: 'Create a report',
        description:
          'Identifiers are normalised, encrypted and indexed. Send an `Idempotency-Key` header to make a retry safe: the same key and body within 24 hours replays the first response (`Idempotent-Replayed: true`).',
        headers: Type.Object({
          'idempotency-key': Type.Optional(Type.String({ description: '1–255 printable ASCII characters' })),
        }),
        body: CreateReportBody,
        response: { 201: CreatedReportResponse, ...errorResponses(409, 422) },
      },
      attachValidation: true,
    },
    async (request, reply) => {
      // A body that fails its schema is still checked for what it can be: every mistake in one answer.
      if (request.validationError) {
        const valueErrors = reports.precheck(request.body);
        throw AppError.validation(withValueErrors(schemaFieldErrors(request.validationError), valueErrors));
      }
      const key = request.headers['idempotency-key'];
      // Node joins a repeated header into one value ("k1, k2"): said as what it is, not as a bad key.
      const raw = request.raw.rawHeaders;
      if (raw.filter((name, i) => i % 2 === 0 && name.toLowerCase() === 'idempotency-key').length > 1) {
        throw AppError.validation([{ field: 'Idempotency-Key', message: 'is given more than once; send one' }]);
      }
      if (key !== undefined && !IDEMPOTENCY_KEY.test(key)) {
        throw AppError.validation([{ field: 'Idempotency-Key', message: 'must be 1 to 255 printable ASCII characters' }]);
      }
      const { replayed, report } = await reports.create(companyActorOf(request), request.body, key);
      if (replayed) reply.header('idempotent-replayed', 'true');
      return reply.code(201).send(ok(report, 'Report created successfully'));
    },
  );

  app.get(
    SUBMISSIONS,
    {
      config: { auth: 'company' },
      schema: {
        tags: ['submissions'],
        summary: "List the company's own submissions, newest first",
        querystring: SubmissionsQuery,
        response: { 200: SubmissionsResponse },
      },
    },
    async (request) =>
      ok(await submissions.list(companyActorOf(request).companyId, request.query), 'Submissions fetched successfully'),
  );

  const byId = { params: ReportIdParams };

  app.get(
    `${SUBMISSIONS}/:id`,
    {
      config: { auth: 'company' },
      schema: {
        ...byId,
        tags: ['submissions'],
        summary: 'Read one submission (identifier values encrypted)',
        response: { 200: ReportResponse, ...errorResponses(404) },
      },
    },
    async (request) =>
      ok(
        { report: await submissions.get(companyActorOf(request).companyId, request.params.id) },
        'Submission fetched successfully',
      ),
  );

  app.get(
    `${SUBMISSIONS}/:id/decode`,
    {
      config: { auth: 'company' },
      schema: {
        ...byId,
        tags: ['submissions'],
        summary: 'Read one submission with clear identifier values',
        response: { 200: ReportResponse, ...errorResponses(404) },
      },
    },
    async (request) =>
      ok({ report: await submissions.decode(companyActorOf(request), request.params.id) }, 'Submission decoded successfully'),
  );

  app.get(
    '/api/v1/admin/reports/:id',
    {
      config: { auth: 'operator' },
      schema: {
        ...byId,
        tags: ['disputes'],
        summary:
          "Read any member's report with clear identifier values, to decide a dispute about it (audited as decode, in the member's trail too)",
        response: { 200: ReportResponse, ...errorResponses(404) },
      },
    },
    async (request) =>
      ok({ report: await submissions.decode(actorOf(request), request.params.id) }, 'Report fetched successfully'),
  );

  app.patch(
    `${SUBMISSIONS}/:id`,
    {
      config: { auth: 'company' },
      schema: {
        ...byId,
        tags: ['submissions'],
        summary: 'Edit a draft (a published report is never edited)',
        body: UpdateDraftBody,
        response: { 200: ReportResponse, ...errorResponses(404, 409) },
      },
    },
    async (request) => {
      const actor = companyActorOf(request);
      const id = await reports.updateDraft(actor, request.params.id, request.body);
      return ok({ report: await submissions.get(actor.companyId, id) }, 'Draft updated successfully');
    },
  );

  const transitions = [
    { path: 'publish', summary: 'Publish a draft', auth: 'company', message: 'Report published successfully' },
    { path: 'exit', summary: 'Take a report off the list, with a reason', auth: 'any', message: 'Report exited from the list' },
    { path: 'relist', summary: 'Put an exited report back on the list', auth: 'any', message: 'Report relisted successfully' },
  ] as const;

  for (const t of transitions) {
    app.post(
      `${SUBMISSIONS}/:id/${t.path}`,
      {
        config: { auth: t.auth },
        schema: {
          ...byId,
          tags: ['submissions'],
          summary: t.summary,
          ...(t.path === 'exit' ? { body: ExitBody } : {}),
          response: { 200: ReportResponse, ...errorResponses(404, 409) },
        },
      },
      async (request) => {
        const actor = actorOf(request);
        const change =
          t.path === 'exit' ? { kind: 'exit' as const, reason: (request.body as { reason: string }).reason } : { kind: t.path };
        const id = await reports.transition(actor, request.params.id, change);
        return ok({ report: await submissions.get(actor.companyId, id) }, t.message);
      },
    );
  }
};
