import { Type } from 'typebox';
import { Envelope } from '../../http/envelope.js';
import { DateTime, Nullable, PageNumber, StringEnum } from '../../http/schema-helpers.js';
import { REPORT_LIMITS } from '../reports/report-values.js';
import { FraudTypeSchema, IdentifierInput, IdentifierOut } from '../reports/reports.schemas.js';
import { PUBLIC_REPORT_LIMITS, PUBLIC_REPORT_STATUSES, REPORTING_ENTITIES, SENDER_STATUSES } from './public-report-values.js';

const L = PUBLIC_REPORT_LIMITS;

const contactFields = {
  name: Type.String({ minLength: 1, maxLength: L.nameMax, pattern: '\\S' }),
  // No shortest length here: a value too short to be an address or a number is told what it is not
  // (normalizeContact), where "at least 6 characters" said nothing of letters in a phone number.
  email: Type.String({ minLength: 1, maxLength: 320, description: 'E-mail address' }),
  phone: Type.String({ minLength: 1, maxLength: 40, description: 'Nigerian local, 234..., +234... or any E.164 number' }),
};

const VictimInput = Type.Object(
  {
    name: Type.Optional(contactFields.name),
    email: Type.Optional(contactFields.email),
    phone: Type.Optional(contactFields.phone),
    amountLost: Type.Optional(Type.Number({ minimum: 0, maximum: L.amountLostMax })),
    currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code, e.g. NGN' })),
  },
  { additionalProperties: false, minProperties: 1, description: 'The victim; e-mail and phone are stored encrypted' },
);

const GuestInfoInput = Type.Object(
  {
    name: Type.Optional(contactFields.name),
    email: Type.Optional(contactFields.email),
    phone: Type.Optional(contactFields.phone),
  },
  { additionalProperties: false, minProperties: 1, description: 'The person reporting; e-mail and phone are stored encrypted' },
);

export const PublicReportBody = Type.Object(
  {
    reportingEntity: StringEnum(REPORTING_ENTITIES, {
      description: 'Who is reporting: the victim, a witness, a guest or a representative',
    }),
    fraudType: FraudTypeSchema,
    fraudReason: Type.String({
      minLength: REPORT_LIMITS.fraudReasonMin,
      maxLength: 10_000,
      description: `${REPORT_LIMITS.fraudReasonMin} to ${REPORT_LIMITS.fraudReasonMax} characters after trimming`,
    }),
    financialInstitution: Type.String({
      minLength: 1,
      maxLength: L.financialInstitutionMax,
      pattern: '\\S',
      description: 'Name of the bank or institution involved',
    }),
    eventDate: Type.String({ description: 'When it happened: an ISO date (2026-11-20) or date-time; not in the future' }),
    identifiers: Type.Array(IdentifierInput, { minItems: REPORT_LIMITS.identifiersMin, maxItems: REPORT_LIMITS.identifiersMax }),
    attachments: Type.Optional(
      Type.Array(Type.String({ maxLength: 2048 }), {
        maxItems: REPORT_LIMITS.attachmentsMax,
        description: 'URLs from POST /api/v1/public/uploads',
      }),
    ),
    victim: Type.Optional(VictimInput),
    guestInfo: Type.Optional(GuestInfoInput),
  },
  { additionalProperties: false },
);

const Reference = Type.String({
  description: "The report's reference for people: the first 8 hex digits of its id, as 3F0C-2A1E (not unique on its own)",
});

export const PublicReportCreatedResponse = Envelope(
  Type.Object({ id: Type.String({ format: 'uuid' }), reference: Reference, status: StringEnum(['draft'] as const) }),
);

export const PublicReportStatusParams = Type.Object({
  id: Type.String({
    description:
      'The full id returned when the report was filed (36 characters). Anything else, a reference included, is 404 like an id no report has',
  }),
});

/** The sender's status page (decision 0129): these four fields and nothing else. */
export const PublicReportStatusResponse = Envelope(
  Type.Object(
    {
      reference: Reference,
      status: StringEnum(SENDER_STATUSES, {
        description:
          '`received`: waiting for an operator to review it; `published`: shared with member banks, whose searches find it; `not_published`: an operator decided not to share it; `withdrawn`: it was shared, then taken down by an operator',
      }),
      receivedAt: DateTime('When the report was filed'),
      updatedAt: DateTime('When its status last changed (the filing time while it is `received`)'),
    },
    { additionalProperties: false },
  ),
);

const contactOut = {
  name: Nullable(Type.String()),
  email: Nullable(Type.String({ description: 'Masked in search and lists (j***@example.com); clear when decoded' })),
  phone: Nullable(Type.String({ description: 'Masked in search and lists (+234****67); clear when decoded' })),
};
export const VictimOut = Type.Object({
  ...contactOut,
  amountLost: Nullable(Type.Number()),
  currency: Nullable(Type.String()),
});
export const GuestInfoOut = Type.Object(contactOut);

/** The interface document's Public report, as search returns it. */
export const publicReportFields = {
  id: Type.String(),
  userId: Nullable(Type.String()),
  fraudReason: Type.String(),
  fraudType: Type.String(),
  attachments: Type.Array(Type.String(), { description: 'Signed download links; they expire (15 minutes by default)' }),
  financialInstitution: Type.String(),
  eventDate: DateTime(),
  companyId: Type.String({ description: 'The built-in "Public reports" company' }),
  notificationSent: Type.Boolean(),
  status: Type.String(),
  victim: Nullable(VictimOut),
  guestInfo: Nullable(GuestInfoOut),
  reportingEntity: Type.String(),
  createdAt: DateTime(),
  updatedAt: DateTime(),
  identifiers: Type.Array(IdentifierOut),
};

/** What operators see: the same fields, any status, and the moderation decision. */
export const ModerationReport = Type.Object({
  ...publicReportFields,
  reference: Reference,
  status: StringEnum(PUBLIC_REPORT_STATUSES),
  rejectionReason: Nullable(Type.String()),
  moderatedAt: Nullable(DateTime()),
});

/**
 * An operators' list of things the public sent, found by the reference given to the sender: its
 * state, the reference (reference.ts) and the page. `what` names them in the descriptions.
 */
export function referencedListQuery<S extends readonly string[]>(statuses: S, what: string) {
  return Type.Object({
    status: Type.Optional(StringEnum(statuses, { description: `Only ${what} in this state` })),
    reference: Type.Optional(
      Type.String({
        maxLength: 64,
        description: `Only ${what} with this reference (3F0C-2A1E, any case, the dash optional) or this full id`,
      }),
    ),
    page: PageNumber,
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  });
}

export const ModerationListQuery = referencedListQuery(PUBLIC_REPORT_STATUSES, 'reports');

export const ModerationListResponse = Envelope(
  Type.Object({
    data: Type.Array(ModerationReport),
    meta: Type.Object({ total: Type.Integer(), page: Type.Integer(), limit: Type.Integer() }),
  }),
);

export const ModerationReportResponse = Envelope(Type.Object({ report: ModerationReport }));

export const PublicReportIdParams = Type.Object({ id: Type.String({ description: 'Public report id' }) });

export const RejectBody = Type.Object(
  {
    reason: Type.String({
      minLength: L.rejectReasonMin,
      maxLength: L.rejectReasonMax,
      description: `Why it is rejected, ${L.rejectReasonMin}–${L.rejectReasonMax} characters (kept for the record, never shown publicly)`,
    }),
  },
  { additionalProperties: false },
);
