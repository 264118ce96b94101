import { AppError } from '../../http/errors.js';
import { type ParsedDate, parseIsoDate, whyNotADate } from '../dates.js';

function parse(value: string, field: string): ParsedDate {
  const parsed = parseIsoDate(value);
  if (!parsed) throw AppError.validation([{ field, message: whyNotADate(value) }]);
  return parsed;
}

/**
 * `from` and `to` are both inclusive; a date-only value is a UTC day (stated in the API docs), so a
 * date-only `to` becomes an exclusive bound at the next UTC midnight.
 */
export function dateRange(from: string | undefined, to: string | undefined): { from?: Date; before?: Date } {
  const range: { from?: Date; before?: Date } = {};
  if (from) range.from = parse(from, 'from').date;
  if (to) {
    const end = parse(to, 'to');
    range.before = new Date(end.date.getTime() + (end.dateOnly ? 86_400_000 : 1));
  }
  if (range.from && range.before && range.from >= range.before) {
    throw AppError.validation([{ field: 'to', message: 'must not be before the start date (from)' }]);
  }
  return range;
}
