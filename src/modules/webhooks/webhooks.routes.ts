import { changeActorOf, companyOf } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { errorResponses } from '../../http/openapi.js';
import type { RoutesPlugin } from '../../http/types.js';
import {
  CreateWebhookBody,
  DeliveriesQuery,
  DeliveriesResponse,
  DeliveryParams,
  RedeliverResponse,
  RemovedWebhookResponse,
  RotateSecretBody,
  UpdateWebhookBody,
  WebhookIdParams,
  WebhookResponse,
  WebhooksResponse,
  WebhookWithSecretResponse,
} from './webhooks.schemas.js';
import type { WebhooksService } from './webhooks.service.js';

const PATH = '/api/v1/external/webhooks';

/** A company's webhook endpoints (signed with Standard Webhooks) and their delivery log. */
export const webhookRoutes: RoutesPlugin<{ webhooks: WebhooksService }> = async (app, { webhooks }) => {
  const tags = ['webhooks'];
  const config = { auth: 'company' as const };
  const byId = { params: WebhookIdParams };

  app.post(
    PATH,
    {
      config,
      schema: {
        tags,
        summary: 'Register a webhook endpoint',
        description:
          'Deliveries follow Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64>`), body `{ type, timestamp, data }`. The secret is shown only in this answer (and after a rotation).',
        body: CreateWebhookBody,
        response: { 201: WebhookWithSecretResponse, ...errorResponses(409) },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(
          ok(
            { webhook: await webhooks.create(companyOf(request).companyId, request.body, changeActorOf(request)) },
            'Webhook endpoint created',
          ),
        ),
  );

  app.get(
    PATH,
    { config, schema: { tags, summary: 'Your webhook endpoints', response: { 200: WebhooksResponse } } },
    async (request) => ok({ webhooks: await webhooks.list(companyOf(request).companyId) }, 'Webhook endpoints fetched'),
  );

  app.get(
    `${PATH}/:id`,
    {
      config,
      schema: { ...byId, tags, summary: 'One webhook endpoint', response: { 200: WebhookResponse, ...errorResponses(404) } },
    },
    async (request) =>
      ok({ webhook: await webhooks.get(companyOf(request).companyId, request.params.id) }, 'Webhook endpoint fetched'),
  );

  app.patch(
    `${PATH}/:id`,
    {
      config,
      schema: {
        ...byId,
        tags,
        summary: 'Change the URL or events, or disable/re-enable an endpoint',
        body: UpdateWebhookBody,
        response: { 200: WebhookResponse, ...errorResponses(404) },
      },
    },
    async (request) =>
      ok(
        { webhook: await webhooks.update(companyOf(request).companyId, request.params.id, request.body, changeActorOf(request)) },
        'Webhook endpoint updated',
      ),
  );

  app.delete(
    `${PATH}/:id`,
    {
      config,
      schema: {
        ...byId,
        tags,
        summary: 'Delete an endpoint and its delivery log',
        response: { 200: RemovedWebhookResponse, ...errorResponses(404) },
      },
    },
    async (request) => {
      await webhooks.remove(companyOf(request).companyId, request.params.id, changeActorOf(request));
      return ok({ id: request.params.id }, 'Webhook endpoint deleted');
    },
  );

  app.post(
    `${PATH}/:id/rotate-secret`,
    {
      config,
      schema: {
        ...byId,
        tags,
        summary: 'Replace the signing secret; the old one keeps signing beside it for `overlapHours`',
        body: RotateSecretBody,
        response: { 200: WebhookWithSecretResponse, ...errorResponses(404) },
      },
    },
    async (request) =>
      ok(
        {
          webhook: await webhooks.rotateSecret(
            companyOf(request).companyId,
            request.params.id,
            request.body?.overlapHours,
            changeActorOf(request),
          ),
        },
        'Webhook secret rotated',
      ),
  );

  app.get(
    `${PATH}/:id/deliveries`,
    {
      config,
      schema: {
        ...byId,
        tags,
        summary: 'The delivery log: each delivery with its attempts (status code, latency, error)',
        querystring: DeliveriesQuery,
        response: { 200: DeliveriesResponse, ...errorResponses(404) },
      },
    },
    async (request) => {
      const { page = 1, limit = 20 } = request.query;
      return ok(
        await webhooks.deliveries(companyOf(request).companyId, request.params.id, { page, limit }),
        'Deliveries fetched successfully',
      );
    },
  );

  app.post(
    `${PATH}/:id/deliveries/:deliveryId/redeliver`,
    {
      config,
      schema: {
        params: DeliveryParams,
        tags,
        summary: 'Send a delivery again (same `webhook-id`)',
        response: { 202: RedeliverResponse, ...errorResponses(404) },
      },
    },
    async (request, reply) =>
      reply
        .code(202)
        .send(
          ok(
            { delivery: await webhooks.redeliver(companyOf(request).companyId, request.params.id, request.params.deliveryId) },
            'Delivery queued',
          ),
        ),
  );
};
