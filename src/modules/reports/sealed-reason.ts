import type { SealContext } from '../../crypto/keyring.js';
import { openSealedOrClear } from '../../crypto/sealed-or-clear.js';

/**
 * A report's free-text reason is sealed at rest like an identifier (people type phone numbers and
 * account numbers into it), bound to its company and record. Search shows every member the masked
 * copy (`fraud_reason_masked`, decision 0032); the owner and operators read the sealed one opened.
 */
export const REASON_LABEL = 'fraudReason';

export interface ReasonSealer {
  seal(text: string, context: SealContext): string;
  open(token: string, context: SealContext): string;
}

/** The columns a stored reason is read from: a row from before migration 0016 has it in clear until start-up seals it. */
export interface StoredReason {
  id: string;
  company_id: string;
  fraud_reason: string | null;
  fraud_reason_token: string | null;
}

export const reasonContext = (companyId: string, recordId: string): SealContext => ({
  companyId,
  recordId,
  label: REASON_LABEL,
});

export function openReason(sealer: Pick<ReasonSealer, 'open'>, row: StoredReason): string {
  return openSealedOrClear(sealer, row.fraud_reason_token, row.fraud_reason, () => reasonContext(row.company_id, row.id)) ?? '';
}
