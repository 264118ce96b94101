import type { SealContext } from '../../crypto/keyring.js';
import { openSealedOrClear } from '../../crypto/sealed-or-clear.js';
import type { ReasonSealer } from '../reports/sealed-reason.js';

/**
 * A dispute's words are sealed at rest (decision 0130), to the report's company and the dispute:
 * people type account numbers and phone numbers into them as into a fraud reason. Who reads which
 * text whole or masked is the service's view (decision 0125).
 */
export const DISPUTE_TEXTS = [
  { column: 'reason', label: 'dispute.reason' },
  { column: 'owner_statement', label: 'dispute.ownerStatement' },
  { column: 'decision_reason', label: 'dispute.decisionReason' },
] as const;

export type DisputeTextColumn = (typeof DISPUTE_TEXTS)[number]['column'];

export const disputeTextContext = (reportCompanyId: string, disputeId: string, label: string): SealContext => ({
  companyId: reportCompanyId,
  recordId: disputeId,
  label,
});

const labelOf = (column: DisputeTextColumn) => DISPUTE_TEXTS.find((text) => text.column === column)?.label as string;

/** The token column's value for a text of a dispute. */
export function sealDisputeText(
  sealer: Pick<ReasonSealer, 'seal'>,
  dispute: { id: string; report_company_id: string },
  column: DisputeTextColumn,
  text: string,
): string {
  return sealer.seal(text, disputeTextContext(dispute.report_company_id, dispute.id, labelOf(column)));
}

type StoredTexts = { id: string; report_company_id: string } & {
  [C in DisputeTextColumn]: string | null;
} & { [C in DisputeTextColumn as `${C}_token`]: string | null };

/** A text of a dispute opened (or read from its clear column, for a row not yet sealed); null if none. */
export function openDisputeText(sealer: Pick<ReasonSealer, 'open'>, row: StoredTexts, column: DisputeTextColumn): string | null {
  return openSealedOrClear(sealer, row[`${column}_token`], row[column], () =>
    disputeTextContext(row.report_company_id, row.id, labelOf(column)),
  );
}
