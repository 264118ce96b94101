import { Type } from 'typebox';
import { companyOf } from '../../http/auth.js';
import { Envelope, ok } from '../../http/envelope.js';
import { DateTime, PageNumber, StringEnum } from '../../http/schema-helpers.js';
import type { RoutesPlugin } from '../../http/types.js';
import type { AuditService } from './audit.service.js';

const AuditQuery = Type.Object({
  page: PageNumber,
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  action: Type.Optional(
    Type.String({
      maxLength: 32,
      description: 'search, screen, decode, create, edit, publish, exit, relist, key_issue, user_invite, webhook_create ...',
    }),
  ),
  excludeAction: Type.Optional(
    Type.String({
      maxLength: 32,
      description: 'Leave this action out: `screen`, say, as a screened customer book writes a row per customer',
    }),
  ),
  from: Type.Optional(Type.String({ description: 'ISO date (a UTC day) or date-time, inclusive' })),
  to: Type.Optional(Type.String({ description: 'ISO date (a UTC day) or date-time, inclusive; a date covers its whole day' })),
});

const AuditEvent = Type.Object({
  id: Type.String({
    description:
      "The event's id in this company's trail (32 hex characters): stable, unrelated to other companies' ids and to how many events happened in between",
  }),
  action: Type.String(),
  keyId: Type.Union([Type.String(), Type.Null()], {
    description: "The company's API key that acted; null for a signed-in user and for anyone outside the company",
  }),
  userId: Type.Union([Type.String(), Type.Null()], {
    description: "The company's signed-in user who acted; null for an API key and for anyone outside the company",
  }),
  actor: StringEnum(['company', 'another_member', 'operators', 'system'] as const, {
    description:
      "Who acted: the company itself (keyId or userId says which key or user), another member company or the registry's operators (a dispute's steps are in both companies' trails; their ids are theirs, never shown), or a background job",
  }),
  label: Type.Union([Type.String(), Type.Null()]),
  blindIndex: Type.Union([
    Type.String({
      description:
        "Hex pseudonym of the searched value: equal for this company's searches of the same value, unrelated to other companies' pseudonyms",
    }),
    Type.Null(),
  ]),
  reportId: Type.Union([Type.String(), Type.Null()]),
  subjectId: Type.Union([Type.String(), Type.Null()], {
    description:
      "What an administrative change was made to: the company's API key (key_issue, key_rotate, key_revoke), user (user_invite, user_role, user_remove, user_password_link, user_password_reset, user_totp_reset) or webhook endpoint (webhook_create, webhook_change, webhook_remove, webhook_secret); the screening job a customer file started (screening_start); null otherwise",
  }),
  resultCount: Type.Union([Type.Integer(), Type.Null()]),
  requestId: Type.Union([Type.String(), Type.Null()], {
    description:
      "The request's id (a caller's own x-request-id when it sent one); null for another member's or the operators' request, whose ids are theirs",
  }),
  createdAt: DateTime(),
});

const AuditResponse = Envelope(
  Type.Object({
    data: Type.Array(AuditEvent),
    meta: Type.Object({ total: Type.Integer(), page: Type.Integer(), limit: Type.Integer() }),
  }),
);

export const auditRoutes: RoutesPlugin<{ audit: AuditService }> = async (app, { audit }) => {
  app.get(
    '/api/v1/external/audit',
    {
      config: { auth: 'company' },
      schema: {
        tags: ['audit'],
        summary: "Page through the company's own audit trail, newest first",
        querystring: AuditQuery,
        response: { 200: AuditResponse },
      },
    },
    async (request) =>
      ok(await audit.listForCompany(companyOf(request).companyId, request.query), 'Audit events fetched successfully'),
  );
};
