import type { FieldError } from '../../http/errors.js';
import { isIdentifierLabel } from '../../identifiers/labels.js';
import type { IdentifierInput, SealedIdentifiers } from '../../identifiers/sealed-identifiers.js';
import { checkFraudReason } from './fraud-reason.js';
import { REPORT_LIMITS } from './report-values.js';

/**
 * The value checks of a report's create (the story's length after trimming, each identifier's
 * normalisation and repeats) on a body that failed its schema: whatever part has the right shape is
 * checked too, so the person filing hears of every mistake in one answer, not one round after
 * another. The identifiers are normalised, not sealed: only their errors are wanted.
 */
export function precheckReport(
  body: Record<string, unknown>,
  identifiers: Pick<SealedIdentifiers, 'check'>,
  errors: FieldError[],
): void {
  if (typeof body.fraudReason === 'string') checkFraudReason(body.fraudReason, errors);
  const items = body.identifiers;
  const wellShaped = (item: unknown): item is IdentifierInput =>
    typeof item === 'object' &&
    item !== null &&
    isIdentifierLabel((item as { label?: unknown }).label) &&
    typeof (item as { value?: unknown }).value === 'string';
  // Normalised only, never sealed; and not a list longer than a report may hold (its schema error says so):
  // a refused body must not cost more than an accepted one.
  if (Array.isArray(items) && items.length <= REPORT_LIMITS.identifiersMax && items.every(wellShaped)) {
    identifiers.check(items, errors);
  }
}

/** The schema's errors, then the value checks' for fields the schema did not already name. */
export function withValueErrors(schemaErrors: FieldError[], valueErrors: FieldError[]): FieldError[] {
  const named = new Set(schemaErrors.map((e) => e.field));
  return [...schemaErrors, ...valueErrors.filter((e) => !named.has(e.field))];
}
