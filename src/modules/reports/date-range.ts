import { AppError } from '../../http/errors.js';

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})$/;

function parse(value: string, field: string): Date {
  const date = new Date(DATE_ONLY.test(value) ? `${value}T00:00:00Z` : value);
  const shaped = DATE_ONLY.test(value) || DATE_TIME.test(value);
  // Date rolls 2026-02-30 over to March; a date that does not exist is a mistake, not a wish.
  const exists = !Number.isNaN(date.getTime()) && (!DATE_ONLY.test(value) || date.toISOString().slice(0, 10) === value);
  if (!shaped || !exists) {
    throw AppError.validation([{ field, message: 'must be an ISO date (2026-11-22) or date-time (2026-11-22T10:00:00Z)' }]);
  }
  return date;
}

/**
 * `from` and `to` are both inclusive; a date-only value is a UTC day (stated in the API docs), so a
 * date-only `to` becomes an exclusive bound at the next UTC midnight.
 */
export function dateRange(from: string | undefined, to: string | undefined): { from?: Date; before?: Date } {
  const range: { from?: Date; before?: Date } = {};
  if (from) range.from = parse(from, 'from');
  if (to) {
    const end = parse(to, 'to');
    range.before = new Date(end.getTime() + (DATE_ONLY.test(to) ? 86_400_000 : 1));
  }
  if (range.from && range.before && range.from >= range.before) {
    throw AppError.validation([{ field: 'to', message: 'must not be before from' }]);
  }
  return range;
}
