import { Type } from 'typebox';
import { Envelope } from '../../http/envelope.js';
import { DateTime, Nullable, PageNumber, StringEnum } from '../../http/schema-helpers.js';
import { EVENT_TYPES } from './outbox.js';

const Url = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: 'https only, and never resolving to a loopback, private, link-local or metadata address',
});
const Events = Type.Array(StringEnum(EVENT_TYPES), { minItems: 1, maxItems: EVENT_TYPES.length, uniqueItems: true });

export const CreateWebhookBody = Type.Object({ url: Url, events: Events }, { additionalProperties: false });

export const UpdateWebhookBody = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Events),
    enabled: Type.Optional(Type.Boolean({ description: 'true re-enables a disabled endpoint' })),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const RotateSecretBody = Type.Object(
  {
    overlapHours: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 168, default: 24, description: 'How long the old secret keeps signing too' }),
    ),
  },
  { additionalProperties: false },
);

const webhookFields = {
  id: Type.String({ format: 'uuid' }),
  url: Type.String(),
  events: Type.Array(Type.String()),
  status: StringEnum(['active', 'disabled'] as const),
  disabledAt: Nullable(DateTime()),
  failingSince: Nullable(
    DateTime(
      'Since when its deliveries have failed, none succeeding since (it is paused after 3 days of it); null when the last one was delivered',
    ),
  ),
  previousSecretUntil: Nullable(DateTime('Until when the previous secret still signs too')),
  createdAt: DateTime(),
  updatedAt: DateTime(),
};
const Webhook = Type.Object(webhookFields);
const WebhookWithSecret = Type.Object({
  ...webhookFields,
  secret: Type.String({ description: '`whsec_` + base64: shown only now, store it to verify signatures' }),
});

export const WebhookWithSecretResponse = Envelope(Type.Object({ webhook: WebhookWithSecret }));
export const WebhookResponse = Envelope(Type.Object({ webhook: Webhook }));
export const WebhooksResponse = Envelope(Type.Object({ webhooks: Type.Array(Webhook) }));
export const WebhookIdParams = Type.Object({ id: Type.String({ description: 'Webhook endpoint id (uuid)' }) });
export const DeliveryParams = Type.Object({
  id: Type.String({ description: 'Webhook endpoint id (uuid)' }),
  deliveryId: Type.String({ description: 'Delivery id (uuid)' }),
});
export const DeliveriesQuery = Type.Object({
  page: Type.Optional(PageNumber),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
});

const Attempt = Type.Object({
  attempt: Type.Integer(),
  statusCode: Nullable(Type.Integer()),
  latencyMs: Type.Integer(),
  error: Nullable(Type.String()),
  at: DateTime(),
});
const Delivery = Type.Object({
  id: Type.String({ format: 'uuid', description: 'Also the `webhook-id` header, as `msg_<id>`' }),
  eventId: Type.String({ format: 'uuid' }),
  type: Type.String(),
  status: StringEnum(['pending', 'delivered', 'failed'] as const),
  attempts: Type.Integer(),
  nextAttemptAt: Nullable(DateTime()),
  deliveredAt: Nullable(DateTime()),
  createdAt: DateTime(),
  log: Type.Array(Attempt),
});
export const DeliveriesResponse = Envelope(
  Type.Object({
    data: Type.Array(Delivery),
    meta: Type.Object({ total: Type.Integer(), page: Type.Integer(), limit: Type.Integer() }),
  }),
);
export const RedeliverResponse = Envelope(Type.Object({ delivery: Type.Object({ id: Type.String(), status: Type.String() }) }));
export const RemovedWebhookResponse = Envelope(Type.Object({ id: Type.String() }));
