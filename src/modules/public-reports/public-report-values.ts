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

/** The label the operators' reason for a rejection is sealed under (decision 0130). */
export const REJECTION_REASON_LABEL = 'rejectionReason';

/**
 * A public report's state as the person who filed it is told it (decision 0129): waiting for an
 * operator (a draft), shared with member banks, not shared (rejected as a draft), or shared and then
 * taken down (rejected after it was published).
 */
export const SENDER_STATUSES = ['received', 'published', 'not_published', 'withdrawn'] as const;
export type SenderStatus = (typeof SENDER_STATUSES)[number];
