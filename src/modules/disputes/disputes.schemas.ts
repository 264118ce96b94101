import { Type } from 'typebox';
import { Envelope } from '../../http/envelope.js';
import { DateTime, Nullable, PageNumber, StringEnum } from '../../http/schema-helpers.js';
import { DISPUTE_LIMITS } from './dispute-states.js';

export const DISPUTE_STATUSES = ['open', 'upheld', 'escalated', 'exited', 'timed_out', 'kept', 'removed'] as const;

const Uuid = Type.String({ format: 'uuid' });

export const OpenDisputeBody = Type.Object(
  {
    reportId: Type.String({ maxLength: 100, description: 'A published, listed report of another company' }),
    reason: Type.String({
      minLength: DISPUTE_LIMITS.reasonMin,
      maxLength: DISPUTE_LIMITS.reasonMax,
      description: `Why the listing is wrong, ${DISPUTE_LIMITS.reasonMin}–${DISPUTE_LIMITS.reasonMax} characters`,
    }),
    identifierIds: Type.Optional(
      Type.Array(Type.String({ maxLength: 100 }), { maxItems: 20, description: "Which of the report's identifiers it concerns" }),
    ),
    attachments: Type.Optional(
      Type.Array(Type.String({ maxLength: 2048 }), {
        maxItems: DISPUTE_LIMITS.attachmentsMax,
        description: 'URLs this company got from POST /api/v1/external/uploads',
      }),
    ),
  },
  { additionalProperties: false },
);

export const UpholdBody = Type.Object(
  {
    statement: Type.String({
      minLength: DISPUTE_LIMITS.statementMin,
      maxLength: DISPUTE_LIMITS.statementMax,
      description: `Why the report stands, ${DISPUTE_LIMITS.statementMin}–${DISPUTE_LIMITS.statementMax} characters`,
    }),
  },
  { additionalProperties: false },
);

export const DecideBody = Type.Object(
  {
    outcome: StringEnum(['keep', 'remove'] as const, {
      description: '`keep` closes the dispute; `remove` takes the report off the list',
    }),
    reason: Type.String({ minLength: DISPUTE_LIMITS.decisionReasonMin, maxLength: DISPUTE_LIMITS.decisionReasonMax }),
  },
  { additionalProperties: false },
);

export const DisputeIdParams = Type.Object({ id: Type.String({ description: 'Dispute id' }) });

export const DisputesQuery = Type.Object({
  side: Type.Optional(
    StringEnum(['raised', 'received'] as const, {
      description: 'Disputes this company raised, or received on its reports; both when absent',
    }),
  ),
  status: Type.Optional(StringEnum(DISPUTE_STATUSES)),
  page: PageNumber,
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
});

export const AdminDisputesQuery = Type.Object({
  status: Type.Optional(StringEnum(DISPUTE_STATUSES)),
  page: PageNumber,
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
});

const CompanyRef = Type.Object({ id: Type.String(), businessName: Type.String() });

/** A dispute as either side and the operators see it: never an identifier's value. */
export const DisputeOut = Type.Object({
  id: Uuid,
  reportId: Uuid,
  report: Type.Object(
    { fraudType: Type.String(), publishedAt: Nullable(DateTime('When the report went on the list')) },
    { description: 'What a person recognises the disputed report by (never its identifiers)' },
  ),
  status: StringEnum(DISPUTE_STATUSES),
  reason: Type.String(),
  identifierIds: Type.Array(Type.String()),
  attachments: Type.Array(Type.String(), { description: 'Signed download links' }),
  openedAt: DateTime(),
  respondBy: DateTime('The owner must uphold or exit by then, or the report leaves the list'),
  ownerStatement: Nullable(Type.String()),
  answeredAt: Nullable(DateTime()),
  escalatedAt: Nullable(DateTime()),
  decidedAt: Nullable(DateTime()),
  decisionReason: Nullable(Type.String()),
  reportingCompany: CompanyRef,
  disputingCompany: Nullable(CompanyRef),
  raisedByOperator: Type.Boolean(),
});

export const DisputeResponse = Envelope(Type.Object({ dispute: DisputeOut }));
export const DisputesResponse = Envelope(
  Type.Object({
    data: Type.Array(DisputeOut),
    meta: Type.Object({ total: Type.Integer(), page: Type.Integer(), limit: Type.Integer() }),
  }),
);
