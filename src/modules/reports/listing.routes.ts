import { Type } from 'typebox';
import { companyActorOf } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { errorResponses } from '../../http/openapi.js';
import type { RoutesPlugin } from '../../http/types.js';
import type { ListingService } from './listing.service.js';
import { ReportIdParams, ReportResponse } from './reports.schemas.js';
import type { SubmissionsService } from './submissions.service.js';

const RenewBody = Type.Object(
  {
    statement: Type.String({
      minLength: 50,
      maxLength: 2000,
      description: 'Why the report should stay on the list, 50–2,000 characters',
    }),
  },
  { additionalProperties: false },
);

export const listingRoutes: RoutesPlugin<{ listing: ListingService; submissions: SubmissionsService }> = async (
  app,
  { listing, submissions },
) => {
  app.post(
    '/api/v1/external/reports/submissions/:id/renew',
    {
      config: { auth: 'company' },
      schema: {
        params: ReportIdParams,
        tags: ['submissions'],
        summary: 'Renew a listing in its last 90 days, with a statement (restarts the listing period)',
        body: RenewBody,
        response: { 200: ReportResponse, ...errorResponses(404, 409) },
      },
    },
    async (request) => {
      const actor = companyActorOf(request);
      const id = await listing.renew(actor, request.params.id, request.body.statement);
      return ok({ report: await submissions.get(actor.companyId, id) }, 'Listing renewed');
    },
  );
};
