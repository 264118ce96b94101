import { Type } from 'typebox';
import { Envelope, ok } from '../../http/envelope.js';
import { errorResponses } from '../../http/openapi.js';
import type { RoutesPlugin } from '../../http/types.js';
import type { BankLinksService } from './bank-links.service.js';
import { CompanyIdParams } from './companies.schemas.js';

const LinkBankBody = Type.Object(
  { bankSlug: Type.String({ minLength: 1, maxLength: 100, description: 'A slug from GET /api/v1/banks' }) },
  { additionalProperties: false },
);
const BankLinkResponse = Envelope(
  Type.Object({
    companyId: Type.String({ format: 'uuid' }),
    bank: Type.Object({ id: Type.String({ format: 'uuid' }), name: Type.String(), slug: Type.String() }),
  }),
);

/** Operators link a member to the bank it is (same as `npx redflag company link-bank`). */
export const bankLinkRoutes: RoutesPlugin<{ bankLinks: BankLinksService }> = async (app, { bankLinks }) => {
  app.put(
    '/api/v1/admin/companies/:companyId/bank',
    {
      config: { auth: 'operator' },
      schema: {
        tags: ['companies'],
        summary: 'Link a company to the bank-list entry it is',
        description:
          'A published public report whose `financialInstitution` names this bank (by name or slug) then sends `public_report.published` to the company (and `public_report.withdrawn` if an operator takes it down). One company per bank.',
        params: CompanyIdParams,
        body: LinkBankBody,
        response: { 200: BankLinkResponse, ...errorResponses(404, 409) },
      },
    },
    async (request) => ok(await bankLinks.link(request.params.companyId, request.body.bankSlug), 'Company linked to bank'),
  );
};
