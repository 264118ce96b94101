import { AppError, type FieldError } from '../http/errors.js';

/**
 * Characters that take no room at all: control characters other than tabs and line breaks, and
 * format characters (zero-width spaces and joiners, direction marks). A reason of sixty zero-width
 * spaces has sixty characters and says nothing, yet would be shown to every member.
 */
const INVISIBLE = /[^\P{Cc}\t\n\r]|\p{Cf}/gu;
/** And what shows nothing by itself: spaces and line breaks of every kind. */
const BLANK = /[\s\p{Z}\p{Cc}\p{Cf}]/gu;
/** A control character other than a tab or a line break: no one types one into a reason. */
const CONTROL = /[^\P{Cc}\t\n\r]/u;
/**
 * Direction overrides, embeddings and isolates (U+202A–U+202E, U+2066–U+2069): they make text read
 * differently from the characters it holds ("Trojan Source"), and plain writing never needs them.
 */
const DIRECTION_CONTROL = /[\u202A-\u202E\u2066-\u2069]/u;

/**
 * Characters a person sees, counted in code points as before: spaces and line breaks between words
 * count, characters that take no room do not, and text of nothing but blanks is empty.
 */
export function visibleLength(text: string): number {
  if (text.replace(BLANK, '') === '') return 0;
  return [...text.replace(INVISIBLE, '')].length;
}

/** Why free text cannot be shown to others as it is, or undefined when it can. */
export function unseenProblem(text: string): string | undefined {
  const control = CONTROL.exec(text) ?? DIRECTION_CONTROL.exec(text);
  if (!control) return undefined;
  const code = `U+${(control[0].codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
  return CONTROL.test(control[0])
    ? `contains a control character (${code}), often left by copying from another program: remove it`
    : `contains a text-direction control (${code}), which makes text read differently from what it holds: remove it`;
}

/**
 * A free-text field (a reason, a statement), trimmed, with its minimum counted after trimming and
 * in characters a reader sees: a schema's `minLength` counts spaces, so `"          a"` passed a
 * 10-character minimum and "a" was stored as the reason a report left the list.
 */
export function trimmedText(field: string, value: string, min: number): string {
  const text = value.trim();
  const error = freeTextError(field, text, min);
  if (error) throw AppError.validation([error]);
  return text;
}

/** The error of an already trimmed free text shorter than `min` or holding what cannot be shown. */
export function freeTextError(field: string, text: string, min: number, max?: number): FieldError | undefined {
  const problem = unseenProblem(text);
  if (problem) return { field, message: problem };
  const length = [...text].length;
  const range = max === undefined ? `at least ${min}` : `${min} to ${max.toLocaleString('en-GB')}`;
  const characters = max === undefined && min === 1 ? 'character' : 'characters';
  if (length < min || (max !== undefined && length > max)) {
    return {
      field,
      message: `must be ${range} ${characters}, not counting spaces at either end${max === undefined ? '' : ` (it has ${length})`}`,
    };
  }
  const visible = visibleLength(text);
  if (visible < min) {
    return {
      field,
      message: `must be ${range} ${characters} you can see (it has ${visible}; spaces and invisible characters do not count)`,
    };
  }
  return undefined;
}
