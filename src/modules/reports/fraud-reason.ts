import type { FieldError } from '../../http/errors.js';
import { REPORT_LIMITS } from './report-values.js';

/** Counted in code points, as a person counts characters (and as JSON Schema's minLength does). */
const length = (text: string) => [...text].length;

/** The fraud reason, trimmed; its length (company and public reports alike) is checked after trimming. */
export function checkFraudReason(reason: string | undefined, errors: FieldError[]): string | undefined {
  if (reason === undefined) return undefined;
  const trimmed = reason.trim();
  const n = length(trimmed);
  if (n < REPORT_LIMITS.fraudReasonMin || n > REPORT_LIMITS.fraudReasonMax) {
    errors.push({
      field: 'fraudReason',
      message: `must be ${REPORT_LIMITS.fraudReasonMin} to ${REPORT_LIMITS.fraudReasonMax.toLocaleString('en-GB')} characters, not counting spaces at either end (it has ${n})`,
    });
  }
  return trimmed;
}
