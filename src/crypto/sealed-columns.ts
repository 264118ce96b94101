import { PUBLIC_REPORTS_COMPANY_ID } from '../modules/companies/public-reports-company.js';
import { DISPUTE_TEXTS, disputeTextContext } from '../modules/disputes/dispute-texts.js';
import { REJECTION_REASON_LABEL } from '../modules/public-reports/public-report-values.js';
import { RESPONSE_LABEL } from '../modules/reports/idempotency.js';
import { reasonContext } from '../modules/reports/sealed-reason.js';
import { reportTextContext, SERVICE_EXIT_REASONS } from '../modules/reports/sealed-texts.js';
import { REVIEW_NOTE_LABEL, REVIEW_REQUEST_LABEL } from '../modules/review-requests/review-request-values.js';
import { safelistReasonContext } from '../modules/safelist/safelist-reason.js';
import { chunkContext, rowContext } from '../modules/screenings/screening-file.js';
import { watchlistRefContext } from '../modules/watchlists/watchlist-ref.js';
import type { SealContext } from './keyring.js';

/**
 * A table column that holds sealed tokens. Rotation reads `idColumn` (unique and ordered: the
 * batches page on it), `tokenColumn` and `contextColumns`, rebuilds each value's context with
 * `context(row)` and re-seals it; a null token is skipped. The context must come from the row itself.
 */
export interface SealedColumn {
  table: string;
  /** One column, or the columns of a composite key (a screening's chunk is its job and number). */
  idColumn: string | readonly string[];
  tokenColumn: string;
  contextColumns: readonly string[];
  /**
   * Where the rows are read from when the context needs more than the table holds: a view over the
   * table that adds it (a screening chunk's company is its job's). Updates still go to `table`.
   */
  readFrom?: string;
  /**
   * Where an earlier version stored the value in clear: start-up seals what is left there
   * (seal-clear-texts.ts), except a fixed phrase of `keepClear` the service itself writes.
   */
  clearColumn?: string;
  keepClear?: readonly string[];
  context(row: Record<string, unknown>): SealContext;
}

/**
 * Every sealed column in the schema; `npx redflag crypto rotate` re-encrypts exactly these. A module
 * that stores sealed values adds one entry here, for example:
 *   { table: 'report_identifiers', idColumn: 'id', tokenColumn: 'value_sealed',
 *     contextColumns: ['company_id', 'report_id', 'label'],
 *     context: (r) => ({ companyId: String(r.company_id), recordId: String(r.report_id), label: String(r.label) }) },
 */
export const sealedColumns: readonly SealedColumn[] = [
  {
    table: 'report_identifiers',
    idColumn: 'id',
    tokenColumn: 'value_token',
    contextColumns: ['company_id', 'report_id', 'label', 'id'],
    context: (r) => ({
      companyId: String(r.company_id),
      recordId: String(r.report_id),
      label: String(r.label),
      rowId: String(r.id),
    }),
  },
  {
    table: 'idempotency_keys',
    idColumn: 'id',
    tokenColumn: 'response_body',
    contextColumns: ['company_id', 'id'],
    context: (r) => ({ companyId: String(r.company_id), recordId: String(r.id), label: RESPONSE_LABEL }),
  },
  {
    // A review request's whole content, sealed to the public side and the request (decision 0122).
    table: 'review_requests',
    idColumn: 'id',
    tokenColumn: 'request_token',
    contextColumns: ['id'],
    context: (r) => ({ companyId: PUBLIC_REPORTS_COMPANY_ID, recordId: String(r.id), label: REVIEW_REQUEST_LABEL }),
  },
  {
    table: 'review_requests',
    idColumn: 'id',
    tokenColumn: 'outcome_note_token',
    contextColumns: ['id'],
    context: (r) => ({ companyId: PUBLIC_REPORTS_COMPANY_ID, recordId: String(r.id), label: REVIEW_NOTE_LABEL }),
  },
  {
    table: 'public_report_identifiers',
    idColumn: 'id',
    tokenColumn: 'value_token',
    contextColumns: ['company_id', 'public_report_id', 'label', 'id'],
    context: (r) => ({
      companyId: String(r.company_id),
      recordId: String(r.public_report_id),
      label: String(r.label),
      rowId: String(r.id),
    }),
  },
  {
    // Reasons: sealed to the company and the report (src/modules/reports/sealed-reason.ts).
    table: 'reports',
    idColumn: 'id',
    tokenColumn: 'fraud_reason_token',
    clearColumn: 'fraud_reason',
    contextColumns: ['company_id', 'id'],
    context: (r) => reasonContext(String(r.company_id), String(r.id)),
  },
  {
    table: 'public_reports',
    idColumn: 'id',
    tokenColumn: 'fraud_reason_token',
    clearColumn: 'fraud_reason',
    contextColumns: ['company_id', 'id'],
    context: (r) => reasonContext(String(r.company_id), String(r.id)),
  },
  {
    // A report's exit reason and renewal statement, in people's words (src/modules/reports/sealed-texts.ts).
    table: 'reports',
    idColumn: 'id',
    tokenColumn: 'exit_list_reason_token',
    clearColumn: 'exit_list_reason',
    keepClear: SERVICE_EXIT_REASONS,
    contextColumns: ['company_id', 'id'],
    context: (r) => reportTextContext(String(r.company_id), String(r.id), 'exitListReason'),
  },
  {
    table: 'reports',
    idColumn: 'id',
    tokenColumn: 'renewal_statement_token',
    clearColumn: 'renewal_statement',
    contextColumns: ['company_id', 'id'],
    context: (r) => reportTextContext(String(r.company_id), String(r.id), 'renewalStatement'),
  },
  {
    // The operators' reason for rejecting a public report (public-reports.service.ts).
    table: 'public_reports',
    idColumn: 'id',
    tokenColumn: 'rejection_reason_token',
    clearColumn: 'rejection_reason',
    contextColumns: ['company_id', 'id'],
    context: (r) => ({ companyId: String(r.company_id), recordId: String(r.id), label: REJECTION_REASON_LABEL }),
  },
  // A dispute's three texts (src/modules/disputes/dispute-texts.ts).
  ...DISPUTE_TEXTS.map(
    (text): SealedColumn => ({
      table: 'disputes',
      idColumn: 'id',
      tokenColumn: `${text.column}_token`,
      clearColumn: text.column,
      contextColumns: ['report_company_id', 'id'],
      context: (r) => disputeTextContext(String(r.report_company_id), String(r.id), text.label),
    }),
  ),
  {
    table: 'public_reports',
    idColumn: 'id',
    tokenColumn: 'victim_token',
    contextColumns: ['company_id', 'id'],
    context: (r) => ({ companyId: String(r.company_id), recordId: String(r.id), label: 'victim' }),
  },
  {
    table: 'public_reports',
    idColumn: 'id',
    tokenColumn: 'guest_info_token',
    contextColumns: ['company_id', 'id'],
    context: (r) => ({ companyId: String(r.company_id), recordId: String(r.id), label: 'guestInfo' }),
  },
  {
    // A user's TOTP secret, bound to their company (or operators) and to them (src/modules/users).
    table: 'users',
    idColumn: 'id',
    tokenColumn: 'totp_secret_token',
    contextColumns: ['company_id', 'operator_id', 'id'],
    context: (r) => ({ companyId: String(r.company_id ?? r.operator_id), recordId: String(r.id), label: 'totp' }),
  },
  {
    table: 'watchlist_entries',
    idColumn: 'id',
    tokenColumn: 'value_token',
    contextColumns: ['company_id', 'label', 'id'],
    // Sealed to the company as its record, and to the entry's row.
    context: (r) => ({
      companyId: String(r.company_id),
      recordId: String(r.company_id),
      label: String(r.label),
      rowId: String(r.id),
    }),
  },
  {
    // A watchlist entry's own reference (src/modules/watchlists/watchlist-ref.ts).
    table: 'watchlist_entries',
    idColumn: 'id',
    tokenColumn: 'ref_token',
    clearColumn: 'ref',
    contextColumns: ['company_id'],
    context: (r) => watchlistRefContext(String(r.company_id), String(r.id)),
  },
  {
    // The operators' reason for a safelist entry (src/modules/safelist/safelist-reason.ts).
    table: 'safelist',
    idColumn: 'id',
    tokenColumn: 'reason_token',
    clearColumn: 'reason',
    contextColumns: [],
    context: (r) => safelistReasonContext(String(r.id)),
  },
  {
    table: 'webhook_endpoints',
    idColumn: 'id',
    tokenColumn: 'secret_token',
    contextColumns: ['company_id'],
    context: (r) => ({ companyId: String(r.company_id), recordId: String(r.id), label: 'webhook.secret' }),
  },
  {
    // A customer file waiting to be screened, a chunk at a time (src/modules/screenings/screening-file.ts).
    table: 'screening_chunks',
    idColumn: ['job_id', 'seq'],
    tokenColumn: 'body_token',
    readFrom: 'screening_chunks_sealed',
    contextColumns: ['company_id'],
    context: (r) => chunkContext(String(r.company_id), String(r.job_id), Number(r.seq)),
  },
  {
    // A matched customer row, for the matches file.
    table: 'screening_matches',
    idColumn: ['job_id', 'line'],
    tokenColumn: 'row_token',
    readFrom: 'screening_matches_sealed',
    contextColumns: ['company_id'],
    context: (r) => rowContext(String(r.company_id), String(r.job_id)),
  },
  {
    table: 'webhook_endpoints',
    idColumn: 'id',
    tokenColumn: 'previous_secret_token',
    contextColumns: ['company_id'],
    context: (r) => ({ companyId: String(r.company_id), recordId: String(r.id), label: 'webhook.previousSecret' }),
  },
];
