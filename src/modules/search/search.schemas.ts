import { Type } from 'typebox';
import { Envelope } from '../../http/envelope.js';
import { DateTime, StringEnum } from '../../http/schema-helpers.js';
import { IDENTIFIER_LABELS } from '../../identifiers/labels.js';
import { publicReportFields } from '../public-reports/public-reports.schemas.js';
import { ReportOut } from '../reports/reports.schemas.js';

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
});

export const SearchResponse = Envelope(
  Type.Object({
    reports: Type.Array(ReportOut, { maxItems: 100 }),
    publicReports: Type.Array(PublicReportOut, { maxItems: 100 }),
    summary: SearchSummary,
  }),
);
