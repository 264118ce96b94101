import { Type } from 'typebox';
import { Envelope } from '../../http/envelope.js';
import { DateTime, Nullable, StringEnum } from '../../http/schema-helpers.js';
import { referencedListQuery } from '../public-reports/public-reports.schemas.js';
import { IdentifierInput } from '../reports/reports.schemas.js';
import { REVIEW_LIMITS as L, PERSON_STATUSES, REVIEW_OUTCOMES, REVIEW_STATUSES } from './review-request-values.js';

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

export const ReviewRequestStatusParams = Type.Object({
  id: Type.String({
    description:
      'The full id returned when the request was sent (36 characters). Anything else, a reference included, is 404 like an id no request has',
  }),
});

/**
 * The person's status page (decision 0133): these four fields and nothing else. Never the outcome:
 * it would say whether anything is listed under the details sent, and anyone may send a request
 * naming another's number (decision 0122).
 */
export const ReviewRequestStatusResponse = Envelope(
  Type.Object(
    {
      reference: Type.String({
        description: "The request's reference for people: the first 8 hex digits of its id, as 3F0C-2A1E (not unique on its own)",
      }),
      status: StringEnum(PERSON_STATUSES, {
        description:
          '`waiting`: the operators have not answered yet; `answered`: the operators closed the request and answered the person outside Redflag, at the contact given (what they found is in that answer, never here)',
      }),
      receivedAt: DateTime('When the request was sent'),
      updatedAt: DateTime('When it was answered (the sending time while it is `waiting`)'),
    },
    { additionalProperties: false },
  ),
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
