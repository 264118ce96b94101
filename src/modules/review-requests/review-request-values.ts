/** The seal label of a review request's content (sealed-columns.ts rotates it). */
export const REVIEW_REQUEST_LABEL = 'review_request';
/** The seal label of the operators' closing note. */
export const REVIEW_NOTE_LABEL = 'review_request_note';

export const REVIEW_OUTCOMES = ['disputed', 'not_listed', 'declined'] as const;
export const REVIEW_STATUSES = ['open', 'closed'] as const;
/** A request's state in the words of the person who sent it (decision 0133): never its outcome. */
export const PERSON_STATUSES = ['waiting', 'answered'] as const;
export type PersonStatus = (typeof PERSON_STATUSES)[number];

export const REVIEW_LIMITS = {
  identifiersMax: 5,
  statementMin: 50,
  statementMax: 2000,
  nameMax: 120,
  noteMin: 10,
  noteMax: 1000,
} as const;
