/** The interface document's fraud types, verbatim (note `sanctioned/ofac`). */
export const FRAUD_TYPES = [
  'hacker',
  'identity_theft',
  'money_mule',
  'suspicious_pep',
  'sanctioned/ofac',
  'theft',
  'fraudulent_loan',
  'social_engineering',
  'other',
  'romance_fraud',
  'land_property_scams',
] as const;
export type FraudType = (typeof FRAUD_TYPES)[number];

export const REPORT_STATUSES = ['published', 'draft'] as const;
export type ReportStatus = (typeof REPORT_STATUSES)[number];

export const LISTING_STATUSES = ['listed', 'exited'] as const;
export type ListingStatus = (typeof LISTING_STATUSES)[number];

export const REPORT_LIMITS = {
  fraudReasonMin: 50,
  fraudReasonMax: 2000,
  identifiersMin: 1,
  identifiersMax: 20,
  attachmentsMax: 3,
  exitReasonMin: 10,
  exitReasonMax: 500,
} as const;
