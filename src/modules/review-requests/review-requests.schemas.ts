import { Type } from 'typebox';
import { Envelope } from '../../http/envelope.js';
import { DateTime, Nullable, StringEnum } from '../../http/schema-helpers.js';
import { referencedListQuery } from '../public-reports/public-reports.schemas.js';
import { IdentifierInput } from '../reports/reports.schemas.js';
import { REVIEW_LIMITS as L, REVIEW_OUTCOMES, REVIEW_STATUSES } from './review-request-values.js';

export const ReviewRequestBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: L.nameMax, pattern: '\\S', description: 'Who is asking' }),
    email: Type.Optional(
      Type.String({ minLength: 1, maxLength: 320, description: 'Where the operators answer; e-mail or phone, or both' }),
    ),
    phone: Type.Optional(
      Type.String({ minLength: 1, maxLength: 40, description: 'Nigerian local, 234..., +234... or any E.164 number' }),
    ),
    identifiers: Type.Array(IdentifierInput, {
      minItems: 1,
      maxItems: L.identifiersMax,
      description: 'The details of yours you believe are listed (your phone, account, BVN, ...)',
    }),
    // The length is checked by the service with the other values, so one answer names every mistake.
    statement: Type.String({
      minLength: 1,
      maxLength: 10_000,
      description: `Why the listing is wrong, ${L.statementMin} to ${L.statementMax} characters after trimming`,
    }),
  },
  { additionalProperties: false },
);

export const ReviewRequestCreatedResponse = Envelope(
  Type.Object({
    id: Type.String({ format: 'uuid' }),
    reference: Type.String({ description: 'What the person quotes when they write or call (3F0C-2A1E)' }),
    status: Type.Literal('open'),
  }),
);

const listedFields = {
  id: Type.String({ format: 'uuid' }),
  reference: Type.String(),
  status: StringEnum(REVIEW_STATUSES),
  labels: Type.Array(Type.String(), { description: 'The kinds of identifiers sent (their values only in the audited read)' }),
  outcome: Nullable(StringEnum(REVIEW_OUTCOMES)),
  createdAt: DateTime(),
  closedAt: Nullable(DateTime()),
};
const Listed = Type.Object(listedFields);

export const ReviewRequestListQuery = referencedListQuery(REVIEW_STATUSES, 'requests');

export const ReviewRequestListResponse = Envelope(
  Type.Object({
    data: Type.Array(Listed),
    meta: Type.Object({ total: Type.Integer(), page: Type.Integer(), limit: Type.Integer() }),
  }),
);

export const ReviewRequestResponse = Envelope(
  Type.Object({
    request: Type.Object({
      ...listedFields,
      name: Type.String(),
      email: Nullable(Type.String()),
      phone: Nullable(Type.String()),
      identifiers: Type.Array(Type.Object({ label: Type.String(), value: Type.String() })),
      statement: Type.String(),
      outcomeNote: Nullable(Type.String({ description: "The operators' note on closing (sealed; only in this read)" })),
    }),
  }),
);

export const ReviewRequestClosedResponse = Envelope(Type.Object({ request: Listed }));

export const ReviewRequestIdParams = Type.Object({ id: Type.String({ description: 'Review request id' }) });

export const CloseReviewBody = Type.Object(
  {
    outcome: StringEnum(REVIEW_OUTCOMES, {
      description:
        'disputed: the operators disputed the reports found (POST /api/v1/external/disputes); not_listed: nothing is listed under these details; declined: the listing stands',
    }),
    note: Type.String({
      minLength: L.noteMin,
      maxLength: L.noteMax,
      description: 'What was done and told to the person, for the record',
    }),
  },
  { additionalProperties: false },
);
