/** The seal label of a review request's content (sealed-columns.ts rotates it). */
export const REVIEW_REQUEST_LABEL = 'review_request';
/** The seal label of the operators' closing note. */
export const REVIEW_NOTE_LABEL = 'review_request_note';

export const REVIEW_OUTCOMES = ['disputed', 'not_listed', 'declined'] as const;
export const REVIEW_STATUSES = ['open', 'closed'] as const;

export const REVIEW_LIMITS = {
  identifiersMax: 5,
  statementMin: 50,
  statementMax: 2000,
  nameMax: 120,
  noteMin: 10,
  noteMax: 1000,
} as const;
