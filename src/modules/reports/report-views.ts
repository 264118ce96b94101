import { leftByExpiry } from './listing.service.js';
import type { IdentifierRow, ReportRow } from './reports.repository.js';

export interface IdentifierView {
  id: string;
  label: string;
  value: string;
}

/**
 * A report as the API shows it. The list route's response schema drops the identifier ids,
 * so one view serves search, list, get and decode.
 */
export function reportView(
  row: ReportRow,
  identifiers: IdentifierView[],
  /** The reason and the exit reason opened (sealed at rest: sealed-reason.ts, sealed-texts.ts). */
  options: { uploaderVisible: boolean; fraudReason: string; exitListReason: string | null },
) {
  return {
    id: row.id,
    companyId: row.company_id,
    userId: options.uploaderVisible || row.show_uploader_info ? row.user_id : null,
    listingStatus: row.listing_status,
    exitedListAt: row.exited_list_at?.toISOString() ?? null,
    exitListReason: options.exitListReason,
    exitedBy:
      row.listing_status !== 'exited'
        ? null
        : row.exited_by_dispute_id
          ? ('dispute' as const)
          : row.exited_by_operator_id
            ? ('operators' as const)
            : leftByExpiry(row)
              ? ('expiry' as const)
              : ('member' as const),
    fraudType: row.fraud_type,
    fraudReason: options.fraudReason,
    showUploaderInfo: row.show_uploader_info,
    attachments: row.attachments,
    status: row.status,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    reportingCompany: { businessName: row.business_name, id: row.company_id },
    identifiers,
  };
}

/** Identifier rows grouped by report, with their stored ciphertext tokens as values. */
export function tokensByReport(rows: IdentifierRow[]): Map<string, IdentifierView[]> {
  const grouped = new Map<string, IdentifierView[]>();
  for (const row of rows) {
    const list = grouped.get(row.report_id) ?? [];
    list.push({ id: row.id, label: row.label, value: row.value_token });
    grouped.set(row.report_id, list);
  }
  return grouped;
}
