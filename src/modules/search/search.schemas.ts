import { Type } from 'typebox';
import { Envelope } from '../../http/envelope.js';
import { DateTime, Nullable, StringEnum } from '../../http/schema-helpers.js';
import { strictSchema } from '../../http/strict-schema.js';
import { IDENTIFIER_LABELS } from '../../identifiers/labels.js';
import { publicReportFields } from '../public-reports/public-reports.schemas.js';
import { ReportOut } from '../reports/reports.schemas.js';
import { RISK_LEVELS } from './verdict.js';

export const SearchBody = Type.Object(
  {
    identifier: StringEnum(IDENTIFIER_LABELS, { description: 'The identifier type to search by' }),
    value: Type.String({
      minLength: 1,
      maxLength: 320,
      description:
        'Written any usual way: it is normalised as on create. For `account`, a bare 10-digit NUBAN matches every bank.',
    }),
  },
  { additionalProperties: false },
);

const NullableDateTime = Type.Union([DateTime(), Type.Null()]);

/** Published public reports; e-mail and phone inside `victim` and `guestInfo` are masked. */
export const PublicReportOut = Type.Object(publicReportFields);

export const SearchSummary = Type.Object({
  totalReports: Type.Integer(),
  totalPublicReports: Type.Integer(),
  fraudTypes: Type.Record(Type.String(), Type.Integer(), { description: 'Matches by fraud type, both lists' }),
  firstReportedAt: NullableDateTime,
  lastReportedAt: NullableDateTime,
  distinctCompanies: Type.Integer({ description: 'Member companies with a matching report: each counts once' }),
  openDisputes: Type.Integer({ description: 'Matching reports with an unresolved dispute' }),
  riskLevel: StringEnum(RISK_LEVELS, {
    description:
      "What the evidence is worth. Each report weighs its fraud type's weight (sanctioned/ofac 2, money_mule and identity_theft 1.5, ..., other 0.5), halved every REDFLAG_RISK_HALF_LIFE_DAYS of age and halved while disputed; each member company counts once with its heaviest report; published public reports add 0.3 of their weights, at most 1 in all. Score below 0.1 none, below 1 low, below 2.5 medium, else high (README, Fairness).",
  }),
});

/** A search hit: the report, and its unresolved dispute (null when there is none). */
export const SearchReportOut = Type.Object({
  ...ReportOut.properties,
  dispute: Nullable(
    Type.Object({
      status: StringEnum(['open', 'upheld', 'escalated'] as const),
      openedAt: DateTime(),
      respondBy: DateTime(),
    }),
  ),
});

export const SearchResponse = Envelope(
  Type.Object({
    reports: Type.Array(SearchReportOut, { maxItems: 100 }),
    publicReports: Type.Array(PublicReportOut, { maxItems: 100 }),
    summary: SearchSummary,
  }),
);

/**
 * The search body as PostgreSQL must build it: `SearchResponse` with no property anywhere beyond
 * those named. Add fields to the schemas above (summary, report, public report); this follows.
 */
export const StrictSearchResponse = strictSchema(SearchResponse);

export const BATCH_LIMIT = 1000;

export const BatchSearchBody = Type.Object(
  {
    items: Type.Array(
      Type.Object(
        {
          // Documented here, checked per item (batch-items.ts): a bad item is its own error, never the batch's.
          identifier: Type.String({ minLength: 1, maxLength: 40, description: 'An identifier type, as for a single search' }),
          value: Type.String({ minLength: 1, maxLength: 320 }),
          ref: Type.Optional(
            Type.String({ maxLength: 200, description: 'Your own reference (a customer number): given back with the result' }),
          ),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: BATCH_LIMIT },
    ),
  },
  { additionalProperties: false },
);

const SearchData = Type.Object({
  ref: Type.Optional(Type.String()),
  reports: Type.Array(SearchReportOut, { maxItems: 100 }),
  publicReports: Type.Array(PublicReportOut, { maxItems: 100 }),
  summary: SearchSummary,
});
const ItemError = Type.Object({
  ref: Type.Optional(Type.String()),
  error: Type.Object({
    code: Type.String({ description: "`VALIDATION_FAILED`, as a whole request's" }),
    field: Type.Optional(Type.String({ description: "The item's field at fault, as `items/3/value`" })),
    message: Type.String(),
  }),
});

/**
 * What the batch's body is validated against: `items`, 1 to 1,000 of anything. Each item is then
 * checked on its own (batch-items.ts) against `BatchSearchBody`'s documented shape.
 */
export const BatchSearchOutline = Type.Object(
  { items: Type.Array(Type.Unknown(), { minItems: 1, maxItems: BATCH_LIMIT }) },
  { additionalProperties: false },
);

export const BatchSearchResponse = Envelope(
  Type.Object({
    results: Type.Array(Type.Union([SearchData, ItemError]), {
      description: "One per item, in the order given: the item's search data, or its error",
    }),
  }),
);
