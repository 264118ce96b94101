export const REPORTING_ENTITIES = ['self', 'witness', 'guest', 'representative'] as const;
export type ReportingEntity = (typeof REPORTING_ENTITIES)[number];

export const PUBLIC_REPORT_STATUSES = ['draft', 'published', 'rejected'] as const;
export type PublicReportStatus = (typeof PUBLIC_REPORT_STATUSES)[number];

export const PUBLIC_REPORT_LIMITS = {
  financialInstitutionMax: 200,
  nameMax: 200,
  rejectReasonMin: 10,
  rejectReasonMax: 500,
  amountLostMax: 1e15,
} as const;
