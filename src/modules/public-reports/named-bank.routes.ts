import { companyActorOf, companyOf } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { errorResponses } from '../../http/openapi.js';
import type { RoutesPlugin } from '../../http/types.js';
import { NamedReportParams, NamedReportResponse, NamedReportsPage, NamedReportsQuery } from './named-bank.schemas.js';
import type { NamedBankService } from './named-bank.service.js';

const PATH = '/api/v1/external/public-reports';

/** Public reports naming the member's bank: the list it was told of, and one read in full (decision 0138). */
export const namedBankRoutes: RoutesPlugin<{ namedBank: NamedBankService }> = async (app, { namedBank }) => {
  const tags = ['public reports'];
  const config = { auth: 'company' as const };

  app.get(
    PATH,
    {
      config,
      schema: {
        tags,
        summary: 'Public reports naming your bank, newest first',
        description:
          'The published public reports whose sender named the bank or payment service your company is linked to (`PUT /api/v1/admin/companies/{id}/bank`): the same ones `public_report.published` told you of, kept whether or not you have a webhook endpoint. A member linked to no bank has none.',
        querystring: NamedReportsQuery,
        response: { 200: NamedReportsPage },
      },
    },
    async (request) => {
      const { page = 1, limit = 20 } = request.query;
      return ok(await namedBank.list(companyOf(request).companyId, { page, limit }), 'Public reports naming your bank fetched');
    },
  );

  app.get(
    `${PATH}/:id`,
    {
      config,
      schema: {
        tags,
        summary: 'Read a public report naming your bank: what happened and the identifiers given',
        description:
          'The identifiers the sender gave of whoever cheated them, in clear, so the bank can find the account or customer; the story as search shows it (long numbers and e-mail addresses masked). Never the victim’s or the sender’s own details, nor the evidence. Only while it is published, and only for a member it was sent to that is still linked to that bank; anything else is the 404 of a random id. Each read is in your audit trail (`public_read`).',
        params: NamedReportParams,
        response: { 200: NamedReportResponse, ...errorResponses(404) },
      },
    },
    async (request) => {
      const { companyId, keyId, userId, requestId } = companyActorOf(request);
      const report = await namedBank.read({ companyId, keyId, userId, requestId }, request.params.id);
      return ok({ report }, 'Public report fetched');
    },
  );
};
