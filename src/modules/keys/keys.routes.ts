import type { FastifyRequest } from 'fastify';
import { changeActorOf, companyOf, principalOf } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { errorResponses } from '../../http/openapi.js';
import type { RoutesPlugin } from '../../http/types.js';
import { CompanyIdParams } from '../companies/companies.schemas.js';
import {
  IssueKeyBody,
  IssueKeyResponse,
  KeyIdParams,
  KeyListResponse,
  KeyResponse,
  RotateKeyBody,
  RotateKeyResponse,
  WhoAmIResponse,
} from './keys.schemas.js';
import type { KeysService } from './keys.service.js';

const tags = ['admin: keys'];
// Operators and company admins issue and rotate keys the same way; one wording for both.
const ISSUE_DESCRIPTION = 'The key is in `data.apiKey`, shown this once. The body is optional.';
const ROTATE_DESCRIPTION =
  'Issues a replacement (in `data.apiKey`, shown once). The old key keeps working for the grace period, then fails. The body is optional.';

/** Issue and rotate take only optional settings, so a POST with no body means "defaults". */
async function noBodyMeansDefaults(request: FastifyRequest): Promise<void> {
  if (request.body === undefined || request.body === null) request.body = {};
}

/** Operator administration of keys, a company's view of its own keys, and "which key am I using". */
export const keyRoutes: RoutesPlugin<{ keys: KeysService }> = async (app, { keys }) => {
  app.post(
    '/api/v1/admin/companies/:companyId/keys',
    {
      config: { auth: 'operator' },
      schema: {
        tags,
        summary: 'Issue another API key for a company',
        description: ISSUE_DESCRIPTION,
        params: CompanyIdParams,
        body: IssueKeyBody,
        response: { 201: IssueKeyResponse, ...errorResponses(404) },
      },
      preValidation: noBodyMeansDefaults,
    },
    async (request, reply) => {
      const issued = await keys.issueForCompany(request.params.companyId, request.body, changeActorOf(request));
      return reply.code(201).send(ok(issued, 'API key issued'));
    },
  );

  app.get(
    '/api/v1/admin/companies/:companyId/keys',
    {
      config: { auth: 'operator' },
      schema: {
        tags,
        summary: "List a company's API keys",
        params: CompanyIdParams,
        response: { 200: KeyListResponse, ...errorResponses(404) },
      },
    },
    async (request) => ok({ keys: await keys.listForCompany(request.params.companyId) }, 'API keys fetched'),
  );

  app.get(
    '/api/v1/admin/keys/:keyId',
    {
      config: { auth: 'operator' },
      schema: { tags, summary: 'Read one API key', params: KeyIdParams, response: { 200: KeyResponse, ...errorResponses(404) } },
    },
    async (request) => ok({ key: await keys.get(request.params.keyId) }, 'API key fetched'),
  );

  app.post(
    '/api/v1/admin/keys/:keyId/revoke',
    {
      config: { auth: 'operator' },
      schema: {
        tags,
        summary: 'Revoke an API key',
        description: 'Refused with 401 on every instance within 5 seconds. Revoking twice is harmless.',
        params: KeyIdParams,
        response: { 200: KeyResponse, ...errorResponses(404) },
      },
    },
    async (request) => ok({ key: await keys.revoke(request.params.keyId, undefined, changeActorOf(request)) }, 'API key revoked'),
  );

  app.post(
    '/api/v1/admin/keys/:keyId/rotate',
    {
      config: { auth: 'operator' },
      schema: {
        tags,
        summary: 'Rotate an API key',
        description: ROTATE_DESCRIPTION,
        params: KeyIdParams,
        body: RotateKeyBody,
        response: { 201: RotateKeyResponse, ...errorResponses(404, 409) },
      },
      preValidation: noBodyMeansDefaults,
    },
    async (request, reply) => {
      const rotated = await keys.rotate(request.params.keyId, request.body, undefined, changeActorOf(request));
      return reply.code(201).send(ok(rotated, 'API key rotated'));
    },
  );

  app.get(
    '/api/v1/external/keys',
    {
      config: { auth: 'company' },
      schema: {
        tags: ['keys'],
        summary: "The calling company's API keys",
        response: { 200: KeyListResponse },
      },
    },
    async (request) => ok({ keys: await keys.listForCompany(companyOf(request).companyId) }, 'API keys fetched'),
  );

  // A company admin manages the company's own keys: the same operations, scoped to the company.
  app.post(
    '/api/v1/external/keys',
    {
      config: { auth: 'company' },
      schema: {
        tags: ['keys'],
        summary: 'Issue another API key for the calling company',
        description: ISSUE_DESCRIPTION,
        body: IssueKeyBody,
        response: { 201: IssueKeyResponse },
      },
      preValidation: noBodyMeansDefaults,
    },
    async (request, reply) => {
      const issued = await keys.issueForCompany(companyOf(request).companyId, request.body, changeActorOf(request));
      return reply.code(201).send(ok(issued, 'API key issued'));
    },
  );

  app.post(
    '/api/v1/external/keys/:keyId/rotate',
    {
      config: { auth: 'company' },
      schema: {
        tags: ['keys'],
        summary: "Rotate one of the calling company's API keys",
        description: ROTATE_DESCRIPTION,
        params: KeyIdParams,
        body: RotateKeyBody,
        response: { 201: RotateKeyResponse, ...errorResponses(404, 409) },
      },
      preValidation: noBodyMeansDefaults,
    },
    async (request, reply) => {
      const rotated = await keys.rotate(request.params.keyId, request.body, companyOf(request).companyId, changeActorOf(request));
      return reply.code(201).send(ok(rotated, 'API key rotated'));
    },
  );

  app.post(
    '/api/v1/external/keys/:keyId/revoke',
    {
      config: { auth: 'company' },
      schema: {
        tags: ['keys'],
        summary: "Revoke one of the calling company's API keys (at once, on every instance within 5 s)",
        params: KeyIdParams,
        response: { 200: KeyResponse, ...errorResponses(404) },
      },
    },
    async (request) =>
      ok(
        { key: await keys.revoke(request.params.keyId, companyOf(request).companyId, changeActorOf(request)) },
        'API key revoked',
      ),
  );

  app.get(
    '/api/v1/auth/whoami',
    {
      config: { auth: 'any' },
      schema: {
        tags: ['keys'],
        summary: 'Who the key in x-api-key belongs to',
        response: { 200: WhoAmIResponse },
      },
    },
    async (request) => {
      const p = principalOf(request);
      return ok(
        {
          role: p.role,
          keyId: p.keyId,
          userId: p.user?.userId ?? null,
          rateLimitPerMinute: p.rateLimitPerMinute,
          company: p.role === 'company' ? { id: p.companyId, businessName: p.businessName } : null,
          operator: p.role === 'operator' ? { id: p.operatorId, name: p.name } : null,
        },
        'API key verified',
      );
    },
  );
};
