/**
 * The one parser for dates that callers send (query filters, a public report's eventDate): an ISO
 * date (2026-11-22, midnight UTC) or date-time with a zone (2026-11-22T10:00:00Z, ...+01:00).
 * JavaScript's Date rolls 2025-02-30 over to 2 March and 24:00 to the next day; a date or time that
 * does not exist is a mistake, not a wish, so it is refused here rather than moved.
 */
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,6})?)?(?:Z|[+-](\d{2}):(\d{2})))?$/;

export const ISO_DATE_MESSAGE =
  'must be a date written year-month-day, such as 2026-11-22 (a time may follow: 2026-11-22T10:00:00Z)';

export interface ParsedDate {
  date: Date;
  /** A date without a time: callers that take a whole day (an inclusive `to`) need to know. */
  dateOnly: boolean;
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** The instant `value` names, or undefined when it is not an ISO date or date-time that exists. */
export function parseIsoDate(value: string): ParsedDate | undefined {
  const match = ISO.exec(value);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second, offsetHours, offsetMinutes] = match.map(Number);
  if (!month || month > 12 || !day || day > daysInMonth(year as number, month)) return undefined;
  const dateOnly = match[4] === undefined;
  if (!dateOnly && ((hour as number) > 23 || (minute as number) > 59 || (second ?? 0) > 59)) return undefined;
  if (match[7] !== undefined && ((offsetHours as number) > 14 || (offsetMinutes as number) > 59)) return undefined;
  const date = new Date(dateOnly ? `${value}T00:00:00Z` : value);
  return Number.isNaN(date.getTime()) ? undefined : { date, dateOnly };
}

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/**
 * Why `parseIsoDate` refused `value`, in words: a date written the right way that does not exist
 * (2025-02-30) is told so, not told how to write a date.
 */
export function whyNotADate(value: string): string {
  const match = ISO.exec(value);
  if (!match) return ISO_DATE_MESSAGE;
  const [, year, month, day, hour, minute, second, offsetHours, offsetMinutes] = match.map(Number);
  if (!month || month > 12) return `has no month ${match[2]}: months run from 01 to 12`;
  const days = daysInMonth(year as number, month);
  if (!day || (day as number) > days) {
    return `is not a day of the calendar: ${MONTHS[month - 1]} ${match[1]} has ${days} days`;
  }
  if ((hour as number) > 23 || (minute as number) > 59 || (second ?? 0) > 59) {
    return 'has a time that does not exist: hours run to 23, minutes and seconds to 59';
  }
  if ((offsetHours as number) > 14 || (offsetMinutes as number) > 59) {
    return 'has a time-zone offset that does not exist: offsets run from -14:00 to +14:00';
  }
  return ISO_DATE_MESSAGE;
}
