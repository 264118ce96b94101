import type { SealContext } from '../../crypto/keyring.js';
import { openSealedOrClear } from '../../crypto/sealed-or-clear.js';
import type { ReasonSealer } from './sealed-reason.js';

/**
 * A report's other words, sealed at rest like its fraud reason (decision 0130): why it left the
 * list, in the words of the member or operators who took it off, and the owner's statement when
 * renewing it. Only their owner and the operators read them.
 *
 * The service's own exit reasons stay in clear (`exit_list_reason`): fixed phrases, and "Expired"
 * is how a report that left by expiry is told apart (listing.service.ts).
 */
export const EXPIRED_REASON = 'Expired';
export const TIMEOUT_REASON = 'Dispute not answered in time';
export const SERVICE_EXIT_REASONS = [EXPIRED_REASON, TIMEOUT_REASON] as const;

export type ReportTextLabel = 'exitListReason' | 'renewalStatement';

export const reportTextContext = (companyId: string, reportId: string, label: ReportTextLabel): SealContext => ({
  companyId,
  recordId: reportId,
  label,
});

/** The columns of a report that leaves the list with people's words as the reason. */
export function sealedExitReason(sealer: Pick<ReasonSealer, 'seal'>, companyId: string, reportId: string, text: string) {
  return {
    exit_list_reason: null,
    exit_list_reason_token: sealer.seal(text, reportTextContext(companyId, reportId, 'exitListReason')),
  };
}

/** The columns of a report that leaves the list for one of the service's own reasons. */
export const serviceExitReason = (text: (typeof SERVICE_EXIT_REASONS)[number]) => ({
  exit_list_reason: text,
  exit_list_reason_token: null,
});

/** A report's exit reason as its owner and the operators read it (null while it is on the list). */
export function openExitReason(
  sealer: Pick<ReasonSealer, 'open'>,
  row: { id: string; company_id: string; exit_list_reason: string | null; exit_list_reason_token: string | null },
): string | null {
  return openSealedOrClear(sealer, row.exit_list_reason_token, row.exit_list_reason, () =>
    reportTextContext(row.company_id, row.id, 'exitListReason'),
  );
}
