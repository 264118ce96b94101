import type { FieldError } from '../../http/errors.js';
import { freeTextError } from '../trimmed-text.js';
import { REPORT_LIMITS } from './report-values.js';

/**
 * The fraud reason, trimmed; its length (company and public reports alike) is checked after
 * trimming, in code points as a person counts characters (and as JSON Schema's minLength does),
 * and in characters a reader can see.
 */
export function checkFraudReason(reason: string | undefined, errors: FieldError[]): string | undefined {
  if (reason === undefined) return undefined;
  const trimmed = reason.trim();
  const error = freeTextError('fraudReason', trimmed, REPORT_LIMITS.fraudReasonMin, REPORT_LIMITS.fraudReasonMax);
  if (error) errors.push(error);
  return trimmed;
}
