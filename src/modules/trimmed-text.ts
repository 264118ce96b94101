import { AppError } from '../http/errors.js';

/**
 * A free-text field (a reason, a statement), trimmed, with its minimum counted after trimming: a
 * schema's `minLength` counts spaces, so `"          a"` passed a 10-character minimum and "a" was
 * stored as the reason a report left the list.
 */
export function trimmedText(field: string, value: string, min: number): string {
  const text = value.trim();
  if (text.length < min)
    throw AppError.validation([{ field, message: `must be at least ${min} characters, not counting spaces at either end` }]);
  return text;
}
