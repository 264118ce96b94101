import { AppError } from '../../http/errors.js';
import { isUuid } from '../ids.js';

/**
 * A public report's reference: the first eight hex digits of its id, in capitals and two groups
 * ("3F0C-2A1E"). A person who filed from a phone can write it down or read it out on a call; the
 * full id (36 characters) is for software. Ids are random (v4), so the digits are too; two reports
 * may share a reference (about even odds once tens of thousands are filed), so a lookup by
 * reference is a list, which the operator tells apart by date and story.
 */
export function referenceOf(id: string): string {
  return `${id.slice(0, 4)}-${id.slice(4, 8)}`.toUpperCase();
}

/** The ids a reference stands for, as a range of the primary key; a full id stands for itself. */
export type ReferenceRange = { from: string; to: string };

export function parseReference(text: string): ReferenceRange {
  const trimmed = text.trim();
  if (isUuid(trimmed)) return { from: trimmed.toLowerCase(), to: trimmed.toLowerCase() };
  const digits = trimmed.replace(/[\s-]/g, '').toLowerCase();
  if (!/^[0-9a-f]{8}$/.test(digits)) {
    throw AppError.validation([
      {
        field: 'reference',
        message: 'must be the 8 letters and digits of a reference, such as 3F0C-2A1E, or a full report id',
      },
    ]);
  }
  return { from: `${digits}-0000-0000-0000-000000000000`, to: `${digits}-ffff-ffff-ffff-ffffffffffff` };
}
