import { ok, schemaFieldErrors } from '../../http/envelope.js';
import { AppError } from '../../http/errors.js';
import { errorResponses } from '../../http/openapi.js';
import { clientAddressRateLimit } from '../../http/rate-limit.js';
import type { RoutesPlugin } from '../../http/types.js';
import { withValueErrors } from '../reports/report-precheck.js';
import { moderatorOf } from './moderator.js';
import {
  ModerationListQuery,
  ModerationListResponse,
  ModerationReportResponse,
  PublicReportBody,
  PublicReportCreatedResponse,
  PublicReportIdParams,
  PublicReportStatusParams,
  PublicReportStatusResponse,
  RejectBody,
} from './public-reports.schemas.js';
import type { PublicReportsService } from './public-reports.service.js';

const HOUR_MS = 60 * 60 * 1000;
/** A person checking their report reloads a page now and then; this is a crowd behind one address doing it. */
const STATUS_READS_PER_MINUTE = 60;
const ADMIN = '/api/v1/admin/public-reports';

/** The public intake (no key, limited per client address) and the operators' moderation. */
export const publicReportsRoutes: RoutesPlugin<{ publicReports: PublicReportsService; reportsPerHour: number }> = async (
  app,
  { publicReports, reportsPerHour },
) => {
  app.post(
    '/api/v1/public/reports',
    {
      config: { rateLimit: clientAddressRateLimit({ max: reportsPerHour, timeWindow: HOUR_MS, countsOnlyAccepted: true }) },
      attachValidation: true,
      schema: {
        tags: ['public reports'],
        summary: 'File a report as a member of the public (no key)',
        description: `Stored as a draft until an operator publishes it. Identifiers are normalised and encrypted as on company reports; the e-mail and phone of \`victim\` and \`guestInfo\` are stored encrypted and shown masked. Limited to ${reportsPerHour} accepted reports an hour per client address (a refused one is not counted).`,
        body: PublicReportBody,
        response: { 201: PublicReportCreatedResponse },
      },
    },
    async (request, reply) => {
      // A body that fails its schema is still checked for what it can be (a phone, a date, the story's
      // length), so the person hears of every mistake in one answer.
      if (request.validationError) {
        throw AppError.validation(
          withValueErrors(schemaFieldErrors(request.validationError), publicReports.precheck(request.body)),
        );
      }
      const created = await publicReports.intake(request.body);
      return reply.code(201).send(ok(created, 'Report received; it will be reviewed before it is published'));
    },
  );

  app.get(
    '/api/v1/public/reports/:id/status',
    {
      // The id in the path is the sender's proof (decision 0129): the per-request lines (info),
      // whose url would carry it, are not written for this route; warnings and errors still are.
      logLevel: 'warn',
      config: { rateLimit: clientAddressRateLimit({ max: STATUS_READS_PER_MINUTE }) },
      schema: {
        tags: ['public reports'],
        summary: 'Where a report filed by the public stands, for the person who filed it (no key)',
        description: `The full id returned by \`POST /api/v1/public/reports\` is what proves the caller filed it: only the reference, the status in plain words and two dates are answered, never the report's contents, identifiers or an operator's reason. An unknown id, one that is not an id, and one of a report since deleted (unpublished reports are deleted after a time) are the same 404. Limited to ${STATUS_READS_PER_MINUTE} requests a minute per client address.`,
        params: PublicReportStatusParams,
        response: { 200: PublicReportStatusResponse, ...errorResponses(404) },
      },
    },
    async (request) => ok(await publicReports.senderStatus(request.params.id), 'Report status fetched successfully'),
  );

  const tags = ['admin: public reports'];

  app.get(
    ADMIN,
    {
      config: { auth: 'operator' },
      schema: {
        tags,
        summary: 'List public reports, newest first (masked contacts, encrypted identifiers)',
        querystring: ModerationListQuery,
        response: { 200: ModerationListResponse },
      },
    },
    async (request) => ok(await publicReports.list(request.query), 'Public reports fetched successfully'),
  );

  app.get(
    `${ADMIN}/:id`,
    {
      config: { auth: 'operator' },
      schema: {
        tags,
        summary: 'Read one public report decoded: clear identifiers and contact details (audited)',
        params: PublicReportIdParams,
        response: { 200: ModerationReportResponse, ...errorResponses(404) },
      },
    },
    async (request) =>
      ok({ report: await publicReports.decoded(moderatorOf(request), request.params.id) }, 'Public report fetched successfully'),
  );

  app.post(
    `${ADMIN}/:id/publish`,
    {
      config: { auth: 'operator' },
      schema: {
        tags,
        summary: 'Publish a draft public report: search finds it from now on (audited)',
        params: PublicReportIdParams,
        response: { 200: ModerationReportResponse, ...errorResponses(404, 409) },
      },
    },
    async (request) =>
      ok({ report: await publicReports.publish(moderatorOf(request), request.params.id) }, 'Public report published'),
  );

  app.post(
    `${ADMIN}/:id/reject`,
    {
      config: { auth: 'operator' },
      schema: {
        tags,
        summary: 'Reject a draft, or take down a published report, with a reason (audited)',
        description: 'A rejected report is kept with its reason and never returned by search.',
        params: PublicReportIdParams,
        body: RejectBody,
        response: { 200: ModerationReportResponse, ...errorResponses(404, 409) },
      },
    },
    async (request) =>
      ok(
        { report: await publicReports.reject(moderatorOf(request), request.params.id, request.body.reason) },
        'Public report rejected',
      ),
  );
};
