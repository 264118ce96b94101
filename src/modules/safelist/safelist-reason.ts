import type { SealContext } from '../../crypto/keyring.js';
import { openSealedOrClear } from '../../crypto/sealed-or-clear.js';
import type { ReasonSealer } from '../reports/sealed-reason.js';

/**
 * The operators' reason for a safelist entry describes a bank's own number, often by quoting it: it
 * is sealed at rest (decision 0135). The safelist belongs to no member, so the reason is sealed to
 * the operators' side (a fixed name in the associated data) and to the entry.
 */
export const SAFELIST_REASON_LABEL = 'safelist.reason';
const OPERATORS_SIDE = 'operators';

export const safelistReasonContext = (entryId: string): SealContext => ({
  companyId: OPERATORS_SIDE,
  recordId: entryId,
  label: SAFELIST_REASON_LABEL,
});

/** A row from before migration 0035 has its reason in clear until start-up seals it. */
export function openSafelistReason(
  sealer: Pick<ReasonSealer, 'open'>,
  row: { id: string; reason: string | null; reason_token: string | null },
): string {
  return openSealedOrClear(sealer, row.reason_token, row.reason, () => safelistReasonContext(row.id)) ?? '';
}
