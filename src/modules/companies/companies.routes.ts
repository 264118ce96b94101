import { ok } from '../../http/envelope.js';
import { errorResponses } from '../../http/openapi.js';
import type { RoutesPlugin } from '../../http/types.js';
import {
  CompanyIdParams,
  CompanyResponse,
  CreateCompanyBody,
  CreateCompanyResponse,
  ListCompaniesQuery,
  ListCompaniesResponse,
} from './companies.schemas.js';
import type { CompaniesService } from './companies.service.js';

const tags = ['admin: companies'];

/** Operator administration of companies. */
export const companyAdminRoutes: RoutesPlugin<{ companies: CompaniesService }> = async (app, { companies }) => {
  app.post(
    '/api/v1/admin/companies',
    {
      config: { auth: 'operator' },
      schema: {
        tags,
        summary: 'Create a company and its first API key',
        description: 'The key is in `data.apiKey`, shown this once.',
        body: CreateCompanyBody,
        response: { 201: CreateCompanyResponse, ...errorResponses(409) },
      },
    },
    async (request, reply) => {
      const created = await companies.create(request.body);
      return reply.code(201).send(ok(created, 'Company created'));
    },
  );

  app.get(
    '/api/v1/admin/companies',
    {
      config: { auth: 'operator' },
      schema: {
        tags,
        summary: 'List companies, newest first',
        querystring: ListCompaniesQuery,
        response: { 200: ListCompaniesResponse },
      },
    },
    async (request) => {
      const { page = 1, limit = 20, status } = request.query;
      return ok(await companies.list({ page, limit, status }), 'Companies fetched');
    },
  );

  app.get(
    '/api/v1/admin/companies/:companyId',
    {
      config: { auth: 'operator' },
      schema: {
        tags,
        summary: 'Read one company',
        params: CompanyIdParams,
        response: { 200: CompanyResponse, ...errorResponses(404) },
      },
    },
    async (request) => ok({ company: await companies.get(request.params.companyId) }, 'Company fetched'),
  );

  app.post(
    '/api/v1/admin/companies/:companyId/suspend',
    {
      config: { auth: 'operator' },
      schema: {
        tags,
        summary: 'Suspend a company',
        description: 'Its keys are refused with 403 on every instance within 5 seconds. Suspending twice is harmless.',
        params: CompanyIdParams,
        response: { 200: CompanyResponse, ...errorResponses(404) },
      },
    },
    async (request) => ok({ company: await companies.suspend(request.params.companyId) }, 'Company suspended'),
  );

  app.post(
    '/api/v1/admin/companies/:companyId/activate',
    {
      config: { auth: 'operator' },
      schema: {
        tags,
        summary: 'Activate a suspended company',
        params: CompanyIdParams,
        response: { 200: CompanyResponse, ...errorResponses(404) },
      },
    },
    async (request) => ok({ company: await companies.activate(request.params.companyId) }, 'Company activated'),
  );
};
