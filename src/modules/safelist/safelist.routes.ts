import { Type } from 'typebox';
import { operatorOf } from '../../http/auth.js';
import { Envelope, ok } from '../../http/envelope.js';
import { errorResponses } from '../../http/openapi.js';
import { DateTime, Nullable, StringEnum } from '../../http/schema-helpers.js';
import type { RoutesPlugin } from '../../http/types.js';
import { IDENTIFIER_LABELS } from '../../identifiers/labels.js';
import type { SafelistService } from './safelist.service.js';

const PATH = '/api/v1/admin/safelist';

export const SafelistAddBody = Type.Object(
  {
    label: StringEnum(IDENTIFIER_LABELS),
    value: Type.String({ minLength: 1, maxLength: 320, description: 'Normalised as on create; only its blind index is stored' }),
    reason: Type.String({ minLength: 10, maxLength: 500 }),
  },
  { additionalProperties: false },
);

const Entry = Type.Object({
  id: Type.String(),
  label: Type.String(),
  reason: Type.String(),
  operatorId: Nullable(Type.String()),
  createdAt: DateTime(),
});

const ToReview = Type.Object({
  id: Type.String(),
  companyId: Type.String(),
  kind: StringEnum(['report', 'public_report'] as const),
  status: Type.String(),
  listingStatus: Nullable(Type.String()),
  reference: Nullable(
    Type.String({ description: "A public report's reference (3F0C-2A1E), the one its filer holds; null for a member's report" }),
  ),
});

export const safelistRoutes: RoutesPlugin<{ safelist: SafelistService }> = async (app, { safelist }) => {
  const tags = ['safelist'];
  app.post(
    PATH,
    {
      config: { auth: 'operator' },
      schema: {
        tags,
        summary: 'Add an identifier that must never be listed',
        description:
          'Reports created, edited or published with it afterwards are refused (422 IDENTIFIER_SAFELISTED). Reports that already carry it are listed in `reportsToReview` and left as they are.',
        body: SafelistAddBody,
        response: { 201: Envelope(Type.Object({ entry: Entry, reportsToReview: Type.Array(ToReview) })), ...errorResponses(409) },
      },
    },
    async (request, reply) => {
      const { keyId, operatorId, user } = operatorOf(request);
      const result = await safelist.add(
        { keyId: keyId ?? undefined, userId: user?.userId, operatorId, requestId: String(request.id) },
        request.body,
      );
      return reply.code(201).send(ok(result, 'Added to the safelist'));
    },
  );

  app.get(
    PATH,
    {
      config: { auth: 'operator' },
      schema: {
        tags,
        summary: 'The safelist (labels and reasons; values are never stored)',
        response: { 200: Envelope(Type.Object({ entries: Type.Array(Entry) })) },
      },
    },
    async () => ok(await safelist.list(), 'Safelist fetched successfully'),
  );

  app.delete(
    `${PATH}/:id`,
    {
      config: { auth: 'operator' },
      schema: {
        tags,
        summary: 'Remove a safelist entry',
        params: Type.Object({ id: Type.String() }),
        response: { 200: Envelope(Type.Object({ entry: Entry })), ...errorResponses(404) },
      },
    },
    async (request) => {
      const { keyId, operatorId, user } = operatorOf(request);
      return ok(
        await safelist.remove(
          { keyId: keyId ?? undefined, userId: user?.userId, operatorId, requestId: String(request.id) },
          request.params.id,
        ),
        'Removed from the safelist',
      );
    },
  );
};
