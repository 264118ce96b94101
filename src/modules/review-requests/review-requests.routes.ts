import { ok, schemaFieldErrors } from '../../http/envelope.js';
import { AppError } from '../../http/errors.js';
import { errorResponses } from '../../http/openapi.js';
import { clientAddressRateLimit } from '../../http/rate-limit.js';
import type { RoutesPlugin } from '../../http/types.js';
import { moderatorOf } from '../public-reports/moderator.js';
import { withValueErrors } from '../reports/report-precheck.js';
import {
  CloseReviewBody,
  ReviewRequestBody,
  ReviewRequestClosedResponse,
  ReviewRequestCreatedResponse,
  ReviewRequestIdParams,
  ReviewRequestListQuery,
  ReviewRequestListResponse,
  ReviewRequestResponse,
  ReviewRequestStatusParams,
  ReviewRequestStatusResponse,
} from './review-requests.schemas.js';
import type { ReviewRequestsService } from './review-requests.service.js';

const HOUR_MS = 60 * 60 * 1000;
/** A person checking their request reloads a page now and then; this is a crowd behind one address doing it. */
const STATUS_READS_PER_MINUTE = 60;
const ADMIN = '/api/v1/admin/review-requests';

/** The public's requests to review a listing (no key, limited per client address) and the operators' side. */
export const reviewRequestsRoutes: RoutesPlugin<{ reviewRequests: ReviewRequestsService; requestsPerHour: number }> = async (
  app,
  { reviewRequests, requestsPerHour },
) => {
  app.post(
    '/api/v1/public/review-requests',
    {
      config: { rateLimit: clientAddressRateLimit({ max: requestsPerHour, timeWindow: HOUR_MS, countsOnlyAccepted: true }) },
      attachValidation: true,
      schema: {
        tags: ['public reports'],
        summary: 'Ask the operators to review a listing you believe is wrong (no key)',
        description:
          'The answer is the same whether or not anything is listed under the details sent: this is not a search. Everything sent is stored encrypted and read only by the operators (audited). ' +
          `Limited to ${requestsPerHour} accepted requests an hour per client address.`,
        body: ReviewRequestBody,
        response: { 201: ReviewRequestCreatedResponse },
      },
    },
    async (request, reply) => {
      // A body that fails its schema is still checked for what it can be (the contact, the
      // statement), so the person hears of every mistake in one answer.
      if (request.validationError) {
        throw AppError.validation(
          withValueErrors(schemaFieldErrors(request.validationError), reviewRequests.precheck(request.body)),
        );
      }
      const created = await reviewRequests.intake(request.body);
      return reply
        .code(201)
        .send(ok(created, 'Request received; the operators will check the registry and answer you at the contact you gave'));
    },
  );

  app.get(
    '/api/v1/public/review-requests/:id/status',
    {
      // The id in the path is the person's proof (decisions 0129, 0133): the per-request lines (info),
      // whose url would carry it, are not written for this route; warnings and errors still are.
      logLevel: 'warn',
      config: { rateLimit: clientAddressRateLimit({ max: STATUS_READS_PER_MINUTE }) },
      schema: {
        tags: ['public reports'],
        summary: 'Whether the operators have answered a review request, for the person who sent it (no key)',
        description:
          "The full id returned by `POST /api/v1/public/review-requests` is what proves the caller sent it: only the reference, `waiting` or `answered` and two dates are answered. Never the outcome, the operators' note or anything the person sent: anyone may send a request naming someone else's details, and the outcome would say whether anything is listed under them, which the public side never says (decision 0122). The operators answer the person outside Redflag, at the contact given. " +
          `An unknown id, one that is not an id, and one of a request since deleted (answered requests are deleted after a time) are the same 404. Limited to ${STATUS_READS_PER_MINUTE} requests a minute per client address.`,
        params: ReviewRequestStatusParams,
        response: { 200: ReviewRequestStatusResponse, ...errorResponses(404) },
      },
    },
    async (request) => ok(await reviewRequests.personStatus(request.params.id), 'Review request status fetched successfully'),
  );

  const tags = ['admin: review requests'];
  app.get(
    ADMIN,
    {
      config: { auth: 'operator' },
      schema: {
        tags,
        summary:
          'Review requests from the public: waiting ones oldest first, the rest newest first (their content only in the audited read)',
        querystring: ReviewRequestListQuery,
        response: { 200: ReviewRequestListResponse },
      },
    },
    async (request) => {
      const { status, reference, page, limit } = request.query;
      return ok(await reviewRequests.list({ status, reference, page, limit }), 'Review requests fetched successfully');
    },
  );

  app.get(
    `${ADMIN}/:id`,
    {
      config: { auth: 'operator' },
      schema: {
        tags,
        summary: "Read one review request in clear: the person's contact, details and statement (audited)",
        params: ReviewRequestIdParams,
        response: { 200: ReviewRequestResponse, ...errorResponses(404) },
      },
    },
    async (request) =>
      ok({ request: await reviewRequests.read(moderatorOf(request), request.params.id) }, 'Review request fetched'),
  );

  app.post(
    `${ADMIN}/:id/close`,
    {
      config: { auth: 'operator' },
      schema: {
        tags,
        summary: 'Close a review request with what was done (audited)',
        description:
          'Dispute the reports found first (POST /api/v1/external/disputes as the operators), then close with `disputed`; `not_listed` or `declined` otherwise.',
        params: ReviewRequestIdParams,
        body: CloseReviewBody,
        response: { 200: ReviewRequestClosedResponse, ...errorResponses(404, 409) },
      },
    },
    async (request) => {
      const { outcome, note } = request.body;
      return ok(
        { request: await reviewRequests.close(moderatorOf(request), request.params.id, outcome, note) },
        'Review request closed',
      );
    },
  );
};
