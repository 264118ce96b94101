import { actorOf } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { errorResponses } from '../../http/openapi.js';
import type { RoutesPlugin } from '../../http/types.js';
import { ExitBody } from '../reports/reports.schemas.js';
import {
  AdminDisputesQuery,
  DecideBody,
  DisputeIdParams,
  DisputeResponse,
  DisputesQuery,
  DisputesResponse,
  OpenDisputeBody,
  UpholdBody,
} from './disputes.schemas.js';
import type { DisputesService } from './disputes.service.js';

const EXTERNAL = '/api/v1/external/disputes';
const ADMIN = '/api/v1/admin/disputes';

/** Disputes: a member (or an operator) challenges a listed report; its owner answers; operators decide escalations. */
export const disputesRoutes: RoutesPlugin<{ disputes: DisputesService }> = async (app, { disputes }) => {
  const tags = ['disputes'];
  const byId = { params: DisputeIdParams };

  app.post(
    EXTERNAL,
    {
      config: { auth: 'any' },
      schema: {
        tags,
        summary: "Dispute another company's listed report",
        description:
          'The owner is told (an audit entry, `submission.disputed`) and must uphold or exit within REDFLAG_DISPUTE_RESPONSE_DAYS (`respondBy`), or the report leaves the list. One unresolved dispute per report and disputing company.',
        body: OpenDisputeBody,
        response: { 201: DisputeResponse, ...errorResponses(404, 409) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(ok({ dispute: await disputes.open(actorOf(request), request.body) }, 'Dispute opened')),
  );

  app.get(
    EXTERNAL,
    {
      config: { auth: 'company' },
      schema: {
        tags,
        summary: 'Disputes this company raised or received, newest first',
        querystring: DisputesQuery,
        response: { 200: DisputesResponse },
      },
    },
    async (request) => {
      const { side, status, page, limit } = request.query;
      return ok(
        await disputes.list({ side, status, page, limit, companyId: actorOf(request).companyId }),
        'Disputes fetched successfully',
      );
    },
  );

  app.get(
    `${EXTERNAL}/:id`,
    {
      config: { auth: 'any' },
      schema: {
        ...byId,
        tags,
        summary: 'Read one dispute (either side)',
        response: { 200: DisputeResponse, ...errorResponses(404) },
      },
    },
    async (request) => ok({ dispute: await disputes.get(actorOf(request), request.params.id) }, 'Dispute fetched successfully'),
  );

  app.post(
    `${EXTERNAL}/:id/uphold`,
    {
      config: { auth: 'company' },
      schema: {
        ...byId,
        tags,
        summary: "The report's owner stands by it, with a statement",
        body: UpholdBody,
        response: { 200: DisputeResponse, ...errorResponses(404, 409) },
      },
    },
    async (request) =>
      ok(
        { dispute: await disputes.uphold(actorOf(request), request.params.id, request.body.statement) },
        'Dispute answered: report upheld',
      ),
  );

  app.post(
    `${EXTERNAL}/:id/exit`,
    {
      config: { auth: 'company' },
      schema: {
        ...byId,
        tags,
        summary: "The report's owner takes the report off the list, with a reason",
        body: ExitBody,
        response: { 200: DisputeResponse, ...errorResponses(404, 409) },
      },
    },
    async (request) =>
      ok(
        { dispute: await disputes.exit(actorOf(request), request.params.id, request.body.reason) },
        'Dispute answered: report exited',
      ),
  );

  app.post(
    `${EXTERNAL}/:id/escalate`,
    {
      config: { auth: 'any' },
      schema: {
        ...byId,
        tags,
        summary: 'Either side sends an upheld dispute to the operators',
        response: { 200: DisputeResponse, ...errorResponses(404, 409) },
      },
    },
    async (request) => ok({ dispute: await disputes.escalate(actorOf(request), request.params.id) }, 'Dispute escalated'),
  );

  app.get(
    ADMIN,
    {
      config: { auth: 'operator' },
      schema: {
        tags,
        summary: 'Every dispute, newest first',
        querystring: AdminDisputesQuery,
        response: { 200: DisputesResponse },
      },
    },
    async (request) => {
      // The declared filters only: an undeclared parameter is ignored (API.md), and `companyId` or
      // `side` passed through would filter by a value no schema checked (a 500 for a non-uuid).
      const { status, page, limit } = request.query;
      return ok(await disputes.list({ status, page, limit }), 'Disputes fetched successfully');
    },
  );

  app.post(
    `${ADMIN}/:id/decide`,
    {
      config: { auth: 'operator' },
      schema: {
        ...byId,
        tags,
        summary: 'Decide an escalated dispute: keep the report, or remove it from the list',
        body: DecideBody,
        response: { 200: DisputeResponse, ...errorResponses(404, 409) },
      },
    },
    async (request) =>
      ok(
        { dispute: await disputes.decide(actorOf(request), request.params.id, request.body.outcome, request.body.reason) },
        'Dispute decided',
      ),
  );
};
