import { Type } from 'typebox';
import { Envelope } from '../../http/envelope.js';
import { DateTime, PageNumber, StringEnum } from '../../http/schema-helpers.js';
import { IDENTIFIER_LABELS } from '../../identifiers/labels.js';
import { FRAUD_TYPES, LISTING_STATUSES, REPORT_LIMITS, REPORT_STATUSES } from './report-values.js';

export const FraudTypeSchema = StringEnum(FRAUD_TYPES, { description: 'The kind of suspected fraud' });
export const IdentifierLabelSchema = StringEnum(IDENTIFIER_LABELS, { description: 'The identifier type' });

export const IdentifierInput = Type.Object(
  {
    label: IdentifierLabelSchema,
    value: Type.String({
      minLength: 1,
      maxLength: 320,
      description: 'For `account`: `<10-digit NUBAN>_<bank slug>` with the slug from the bank list',
    }),
  },
  { additionalProperties: false },
);

const reportFields = {
  fraudType: FraudTypeSchema,
  // Its length is checked after trimming, by the service, so one message covers every case.
  fraudReason: Type.String({
    description: `${REPORT_LIMITS.fraudReasonMin} to ${REPORT_LIMITS.fraudReasonMax} characters after trimming`,
  }),
  identifiers: Type.Array(IdentifierInput, { minItems: REPORT_LIMITS.identifiersMin, maxItems: REPORT_LIMITS.identifiersMax }),
  attachments: Type.Array(Type.String({ maxLength: 2048 }), {
    maxItems: REPORT_LIMITS.attachmentsMax,
    description: 'URLs this company got from the upload endpoint',
  }),
  showUploaderInfo: Type.Boolean({ description: 'Show userId to other companies in search results' }),
  userId: Type.String({ minLength: 1, maxLength: 128, description: "The company's own id for the user who reports" }),
  status: StringEnum(REPORT_STATUSES, { description: '`published` (default) or `draft`' }),
};

export const CreateReportBody = Type.Object(
  {
    fraudType: reportFields.fraudType,
    fraudReason: reportFields.fraudReason,
    identifiers: reportFields.identifiers,
    attachments: Type.Optional(reportFields.attachments),
    showUploaderInfo: Type.Optional(reportFields.showUploaderInfo),
    userId: Type.Optional(reportFields.userId),
    status: Type.Optional(reportFields.status),
  },
  { additionalProperties: false },
);

/** A draft edit: any of the create fields; `identifiers` and `attachments` replace the old lists whole. */
export const UpdateDraftBody = Type.Object(
  {
    fraudType: Type.Optional(reportFields.fraudType),
    fraudReason: Type.Optional(reportFields.fraudReason),
    identifiers: Type.Optional(reportFields.identifiers),
    attachments: Type.Optional(reportFields.attachments),
    showUploaderInfo: Type.Optional(reportFields.showUploaderInfo),
    userId: Type.Optional(Type.Union([reportFields.userId, Type.Null()])),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const ExitBody = Type.Object(
  {
    reason: Type.String({
      minLength: REPORT_LIMITS.exitReasonMin,
      maxLength: REPORT_LIMITS.exitReasonMax,
      description: `Why the report leaves the list, ${REPORT_LIMITS.exitReasonMin}–${REPORT_LIMITS.exitReasonMax} characters`,
    }),
  },
  { additionalProperties: false },
);

export const ReportIdParams = Type.Object({ id: Type.String({ description: 'Report id' }) });

export const SubmissionsQuery = Type.Object({
  page: PageNumber,
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  fraudType: Type.Optional(FraudTypeSchema),
  status: Type.Optional(StringEnum(REPORT_STATUSES)),
  listingStatus: Type.Optional(StringEnum(LISTING_STATUSES)),
  from: Type.Optional(Type.String({ description: 'ISO date (a UTC day) or date-time, inclusive' })),
  to: Type.Optional(Type.String({ description: 'ISO date (a UTC day) or date-time, inclusive; a date covers its whole day' })),
});

const NullableString = Type.Union([Type.String(), Type.Null()]);
const NullableDateTime = Type.Union([DateTime(), Type.Null()]);

export const IdentifierOut = Type.Object({
  id: Type.String(),
  label: Type.String(),
  value: Type.String({ description: 'Encrypted token, except in decode where it is the clear normalised value' }),
  unreadable: Type.Optional(
    Type.Boolean({
      description: 'Decode only: true when this value could not be decrypted (its token is shown; the rest are served)',
    }),
  ),
});
const IdentifierOutNoId = Type.Object({ label: Type.String(), value: Type.String() });

const reportOutFields = {
  id: Type.String(),
  companyId: Type.String(),
  userId: NullableString,
  listingStatus: StringEnum(LISTING_STATUSES),
  exitedListAt: NullableDateTime,
  exitListReason: NullableString,
  fraudType: Type.String(),
  fraudReason: Type.String(),
  showUploaderInfo: Type.Boolean(),
  attachments: Type.Array(Type.String(), { description: 'Signed download links; they expire (15 minutes by default)' }),
  createdAt: DateTime(),
  updatedAt: DateTime(),
  reportingCompany: Type.Object({ businessName: Type.String(), id: Type.String() }),
};

/** A report as search, get and decode return it. */
export const ReportOut = Type.Object({
  ...reportOutFields,
  status: StringEnum(REPORT_STATUSES),
  identifiers: Type.Array(IdentifierOut),
});

/** What only the owner reads of its own submission: how it left the list and its listing period. */
const submissionFields = {
  exitedBy: Type.Union([StringEnum(['member', 'expiry', 'dispute', 'operators'] as const), Type.Null()], {
    description:
      'What took the report off the list: the member itself (it may relist), the listing period ending (it may renew, with a statement, for a new period), a dispute or the operators (only the operators may relist); null while listed',
  }),
  listedUntil: Type.Union([DateTime(), Type.Null()], {
    description:
      'When a listed report leaves the list unless renewed (REDFLAG_LISTING_DAYS); null for a draft or a report off the list',
  }),
  renewableFrom: Type.Union([DateTime(), Type.Null()], {
    description: "From when it may be renewed (`POST .../renew`): the period's last 90 days; null when not listed",
  }),
};

/** A company's own submission (get, decode and each change). */
export const SubmissionOut = Type.Object({ ...ReportOut.properties, ...submissionFields });

/**
 * A list item: identifiers without ids (the interface document's list shape), plus `status`. The
 * document's list has none, but a draft's `listingStatus` says `listed`, so without it a list could
 * not tell a draft from a report on the list.
 */
export const ReportListItem = Type.Object({
  ...reportOutFields,
  ...submissionFields,
  status: StringEnum(REPORT_STATUSES),
  identifiers: Type.Array(IdentifierOutNoId),
});

export const CreatedReport = Type.Object({
  id: Type.String(),
  status: StringEnum(REPORT_STATUSES),
  exitedListAt: NullableDateTime,
  exitListReason: NullableString,
  fraudType: Type.String(),
  fraudReason: Type.String(),
  companyId: Type.String(),
  updatedAt: DateTime(),
  createdAt: DateTime(),
  identifiers: Type.Array(IdentifierOutNoId, { description: 'The normalised clear values the caller sent' }),
  attachments: Type.Array(Type.String(), { description: 'Signed download links; they expire (15 minutes by default)' }),
  reportedBy: Type.String({ description: "The reporting company's business name" }),
});

export const CreatedReportResponse = Envelope(CreatedReport);
export const ReportResponse = Envelope(Type.Object({ report: SubmissionOut }));
export const SubmissionsResponse = Envelope(
  Type.Object({
    data: Type.Array(ReportListItem),
    meta: Type.Object({ total: Type.Integer(), page: Type.Integer(), limit: Type.Integer() }),
  }),
);
