import { textProblem } from '../../http/validation.js';

/** One item of a batch search, as its schema (search.schemas.ts) documents it. */
export interface BatchItem {
  identifier: string;
  value: string;
  ref?: string | undefined;
}

/** An item ready to search, or why it cannot be: its own error in the batch's answer. */
export type CheckedBatchItem =
  | { ok: true; item: BatchItem }
  | { ok: false; ref: string | undefined; field: string; message: string };

const KEYS = new Set(['identifier', 'value', 'ref']);
const MAX_VALUE = 320;
const MAX_REF = 200;

/** Why a field's text cannot be taken, or undefined: text, within `max` characters, storable. */
function fieldProblem(value: unknown, max: number): string | undefined {
  if (typeof value !== 'string') return value === undefined ? 'is required' : 'must be text';
  if (value.length > max) return `must be at most ${max} characters`;
  return textProblem(value);
}

/**
 * Checks the batch's `n`th item as the body's schema would, so that a bad item is that item's
 * error and the others are still searched ("one bad item never fails the batch"). Its `ref` is
 * given back with its error when the ref itself is good.
 */
export function checkBatchItem(raw: unknown, n: number): CheckedBatchItem {
  const field = (key?: string) => (key ? `items/${n}/${key}` : `items/${n}`);
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return { ok: false, ref: undefined, field: field(), message: 'must be an object: { identifier, value, ref? }' };
  }
  const item = raw as Record<string, unknown>;
  const refProblem = item.ref === undefined ? undefined : fieldProblem(item.ref, MAX_REF);
  const ref = item.ref === undefined || refProblem ? undefined : (item.ref as string);
  const fail = (key: string | undefined, message: string): CheckedBatchItem => ({ ok: false, ref, field: field(key), message });
  if (refProblem) return fail('ref', refProblem);
  const unknown = Object.keys(item).find((key) => !KEYS.has(key));
  // Named as a whole request's error names a field it does not take.
  if (unknown !== undefined) return fail(unknown, 'is not an accepted field');
  const identifierProblem = fieldProblem(item.identifier, 40);
  if (identifierProblem) return fail('identifier', identifierProblem);
  const valueProblem = fieldProblem(item.value, MAX_VALUE);
  if (valueProblem) return fail('value', valueProblem);
  if ((item.value as string).trim() === '') return fail('value', 'must not be empty');
  return { ok: true, item: { identifier: item.identifier as string, value: item.value as string, ref } };
}
