import type { Generated } from 'kysely';

/** Table types, snake_case as in SQL. Each feature adds its tables here with its migration. */
export interface BanksTable {
  id: Generated<string>;
  name: string;
  slug: string;
  code: string;
  nip_code: string | null;
  category: string;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export type CompanyStatus = 'active' | 'suspended';
export type KeyRole = 'company' | 'operator';

export interface CompaniesTable {
  id: Generated<string>;
  business_name: string;
  status: Generated<CompanyStatus>;
  /** Requests a minute for each of the company's keys; null = the service default. */
  rate_limit_per_minute: number | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface OperatorsTable {
  id: Generated<string>;
  name: string;
  created_at: Generated<Date>;
}

export interface ApiKeysTable {
  id: Generated<string>;
  role: KeyRole;
  company_id: string | null;
  operator_id: string | null;
  prefix: string;
  /** SHA-256 of the whole key; the key itself is never stored. */
  hash: Buffer;
  created_at: Generated<Date>;
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
  replaced_by: string | null;
}

/** Data-encryption key ids (src/crypto): which is primary, and a check value, never key material. */
export interface EncryptionKeysTable {
  id: string;
  is_primary: Generated<boolean>;
  key_check: Buffer;
  created_at: Generated<Date>;
  /** When the key stopped being primary. */
  retired_at: Date | null;
  /** When every sealed value had been re-encrypted under this key (null: a rotation to it is unfinished). */
  reencrypted_at: Date | null;
}

/** Wrapped key material (src/crypto/key-store.ts): never a clear key, only AES-GCM under the root's KEK. */
export interface CryptoKeysTable {
  id: string;
  kind: 'check' | 'data' | 'index' | 'url' | 'pseudonym' | 'evidence' | 'root' | 'retired-root';
  label: string | null;
  version: number | null;
  wrapped: Buffer;
  /** Fingerprint of the root key whose KEK wrapped this row. */
  root_id: Buffer;
  created_at: Generated<Date>;
}

export interface ReportsTable {
  id: string;
  company_id: string;
  user_id: string | null;
  fraud_type: string;
  /** Null once sealed (migration 0016): the reason is `fraud_reason_token`. */
  fraud_reason: string | null;
  /** The reason sealed to the company and the report (src/modules/reports/sealed-reason.ts). */
  fraud_reason_token: string | null;
  /** The reason with identifier-shaped substrings masked (reason-masking.ts): what other companies see. */
  fraud_reason_masked: string;
  show_uploader_info: Generated<boolean>;
  attachments: Generated<string[]>;
  status: 'draft' | 'published';
  /** When it went on the list (a draft published later is "reported" then); search orders by it. */
  published_at: Date | null;
  listing_status: Generated<'listed' | 'exited'>;
  exited_list_at: Date | null;
  /** Only an exit reason the service wrote (one of the fixed phrases of migration 0032); people's words are in the token. */
  exit_list_reason: string | null;
  /** Why it left the list in the words of the member or operators who took it off, sealed (src/modules/reports/sealed-texts.ts). */
  exit_list_reason_token: Generated<string | null>;
  /** The dispute that took it off the list, while it is off (migration 0022); a member may not relist it. */
  exited_by_dispute_id: Generated<string | null>;
  /** The operator that took the report off the list, while it is off (only the operators may relist it). */
  exited_by_operator_id: Generated<string | null>;
  /** The latest renewal: the listing period runs from it (or from published_at) for REDFLAG_LISTING_DAYS. */
  renewed_at: Date | null;
  /** Written before migration 0032 only; renewal_statement_token holds it sealed since. */
  renewal_statement: string | null;
  renewal_statement_token: Generated<string | null>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface ReportIdentifiersTable {
  id: string;
  report_id: string;
  company_id: string;
  position: number;
  label: string;
  /** The sealed normalised value (src/crypto/keyring.ts), never the clear value. */
  value_token: string;
  /** HMAC of the normalised value under the label's key. */
  blind_index: Buffer;
  /** Accounts only: HMAC of the bare NUBAN, so a search without a bank finds every bank. */
  nuban_index: Buffer | null;
  index_version: number;
  /** Which version of the label's index key made `blind_index` (and `nuban_index`). */
  index_key_version: Generated<number>;
}

export interface IdempotencyKeysTable {
  id: Generated<string>;
  company_id: string;
  key: string;
  request_hash: Buffer;
  state: 'in_flight' | 'done';
  response_status: number | null;
  /** The first response, sealed: it repeats the clear identifiers the caller sent. */
  response_body: string | null;
  created_at: Generated<Date>;
  /** The service instance (process) whose request holds the key while in flight. */
  claimed_by: string | null;
  /** This claim; a request that lost its claim (taken over after its lease lapsed) cannot complete. */
  claim_id: string | null;
}

export interface ServiceInstancesTable {
  id: string;
  started_at: Generated<Date>;
  /** Alive while this is in the future; renewed by a heartbeat on the server engine. */
  lease_until: Date;
}

export interface AuditEventsTable {
  id: Generated<string>;
  company_id: string | null;
  operator_id: string | null;
  /** The API key that acted, or null when a user's session did (then `user_id`). */
  key_id: string | null;
  user_id: string | null;
  action: string;
  label: string | null;
  blind_index: Buffer | null;
  report_id: string | null;
  result_count: number | null;
  request_id: string;
  /** The key, user or webhook endpoint an administrative change was made to (migration 0025). */
  subject_id: Generated<string | null>;
  created_at: Generated<Date>;
}

/** An evidence file's metadata; its bytes are in the blob store under `storage_key`. */
export interface UploadsTable {
  id: string;
  company_id: string;
  content_type: string;
  size: number;
  /** HMAC-SHA-256 of the file's SHA-256 under the stored evidence key (`sha256_keyed`), never the plain hash. */
  sha256: Buffer;
  /** False only for rows from before keyed hashes, until the service converts them at start. */
  sha256_keyed: Generated<boolean>;
  storage_key: string;
  /** The report or public report it is attached to; null while attached to nothing. */
  record_id: string | null;
  /** Since when it has been attached to nothing (null while attached); removed 24 h later. */
  orphaned_at: Generated<Date | null>;
  created_at: Generated<Date>;
}

/** The database blob store's bytes (src/modules/uploads/storage). */
export interface UploadBlobsTable {
  key: string;
  /** Slice number: a file is stored in slices, in order. */
  seq: number;
  data: Buffer;
  created_at: Generated<Date>;
}

export type PublicReportStatus = 'draft' | 'published' | 'rejected';

export interface PublicReportsTable {
  id: string;
  company_id: string;
  reporting_entity: string;
  fraud_type: string;
  /** Null once sealed (migration 0016): the reason is `fraud_reason_token`. */
  fraud_reason: string | null;
  fraud_reason_token: string | null;
  /** The reason with identifier-shaped substrings masked: what search shows. */
  fraud_reason_masked: string;
  financial_institution: string;
  event_date: Date;
  /** Upload ids, in the order given. */
  attachments: Generated<string[]>;
  /** Sealed JSON of the victim's details as given (normalised). */
  victim_token: string | null;
  /** The same with e-mail and phone masked: what search shows. */
  victim_masked: unknown | null;
  guest_info_token: string | null;
  guest_info_masked: unknown | null;
  status: Generated<PublicReportStatus>;
  notification_sent: Generated<boolean>;
  /** Written before migration 0032 only; the operators' reason is sealed in rejection_reason_token since. */
  rejection_reason: string | null;
  rejection_reason_token: Generated<string | null>;
  /** When it was first published (migration 0034): kept when it is taken down, so its sender reads "withdrawn". */
  first_published_at: Generated<Date | null>;
  /** The operator who published or rejected it. */
  moderated_by: string | null;
  moderated_at: Date | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface PublicReportIdentifiersTable {
  id: string;
  public_report_id: string;
  company_id: string;
  position: number;
  label: string;
  value_token: string;
  blind_index: Buffer;
  nuban_index: Buffer | null;
  index_version: number;
  /** Which version of the label's index key made `blind_index` (and `nuban_index`). */
  index_key_version: Generated<number>;
}

export type ReviewRequestStatus = 'open' | 'closed';
export type ReviewOutcome = 'disputed' | 'not_listed' | 'declined';

/** A person's request to review a listing they believe is wrong (migration 0028, decision 0122). */
export interface ReviewRequestsTable {
  id: string;
  status: Generated<ReviewRequestStatus>;
  /** Sealed JSON: name, email, phone, identifiers and statement (review-requests.service.ts). */
  request_token: string;
  labels: string[];
  outcome: ReviewOutcome | null;
  /** Sealed: the operators' note on closing (it names the person too). */
  outcome_note_token: string | null;
  created_at: Generated<Date>;
  closed_at: Date | null;
}

/** Maintained by a trigger on reports (migration 0006): the list's totals without counting rows. */
export interface ReportCountsTable {
  company_id: string;
  status: string;
  listing_status: string;
  fraud_type: string;
  n: number;
}

/** Kept by triggers (migration 0018, decision 0102): a report's search entry as JSON text, without `dispute`. */
export interface ReportCardsTable {
  report_id: string;
  card: string;
}

/** Kept by triggers (migration 0018): a public report's search entry as JSON text. */
export interface PublicReportCardsTable {
  public_report_id: string;
  card: string;
}

export type UserStatus = 'invited' | 'active' | 'suspended' | 'removed';
export type CompanyUserRole = 'admin' | 'analyst' | 'viewer';
export type OperatorUserRole = 'moderator' | 'admin';

/** A person: a member company's staff (company_id) or the registry's (operator_id). */
export interface UsersTable {
  id: Generated<string>;
  company_id: string | null;
  operator_id: string | null;
  /** Lower case; sign-in is by e-mail. */
  email: string;
  name: string | null;
  role: CompanyUserRole | OperatorUserRole;
  status: Generated<UserStatus>;
  /** argon2id PHC string; null until the invitation is accepted. */
  password_hash: string | null;
  /** The TOTP secret, sealed (src/crypto/keyring.ts); set at enrolment, trusted once confirmed. */
  totp_secret_token: string | null;
  totp_confirmed_at: Date | null;
  /** The last accepted TOTP time step (replay guard). */
  totp_last_step: string | null;
  /** Who last took this person's second factor away (decision 0136). */
  second_factor_reset_by: string | null;
  /** The administrator handed the link that set the current password; null once the person set one themselves (decision 0136). */
  password_link_handed_to: string | null;
  /** E-mail alerts about watched customers: told of the events up to this time; null when not asked for (decision 0140). */
  watchlist_alerts_after: Date | null;
  /** When a mail of those alerts last failed: the person waits an hour, behind the others. */
  watchlist_alerts_failed_at: Date | null;
  /** Those alerts once a day, at 08:00 in Lagos, instead of every quarter of an hour (migration 0039). */
  watchlist_alerts_daily: Generated<boolean>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export type LinkPurpose = 'invitation' | 'password_reset';

export interface UserInvitationsTable {
  id: Generated<string>;
  user_id: string;
  /** SHA-256 of the token in the invite URL; the token itself is never stored. */
  token_hash: Buffer;
  /** An invitation accepts the account; a password reset sets a new password on an active one (migration 0033). */
  purpose: Generated<LinkPurpose>;
  expires_at: Date;
  accepted_at: Date | null;
  created_at: Generated<Date>;
  /** The administrator a password link was answered to in clear; null when it went only to the person's mailbox (decision 0136). */
  handed_to: string | null;
}

export interface UserSessionsTable {
  id: Generated<string>;
  /** SHA-256 of the cookie's value. */
  token_hash: Buffer;
  user_id: string;
  created_at: Date;
  last_seen_at: Date;
  /** The absolute end, whatever the activity. */
  expires_at: Date;
}

export interface UserRecoveryCodesTable {
  id: Generated<string>;
  user_id: string;
  code_hash: Buffer;
  used_at: Date | null;
}

export type DisputeStatus = 'open' | 'upheld' | 'escalated' | 'exited' | 'timed_out' | 'kept' | 'removed';

/** A challenge to a listed report (src/modules/disputes). */
export interface DisputesTable {
  id: string;
  report_id: string;
  report_company_id: string;
  disputing_company_id: string | null;
  disputing_operator_id: string | null;
  /**
   * The three texts are sealed to the report's company and the dispute (src/modules/disputes/dispute-texts.ts);
   * the clear columns hold only rows written before migration 0032, until the next start seals them.
   */
  reason: string | null;
  reason_token: Generated<string | null>;
  identifier_ids: Generated<string[]>;
  attachments: Generated<string[]>;
  status: DisputeStatus;
  opened_at: Date;
  respond_by: Date;
  owner_statement: string | null;
  owner_statement_token: Generated<string | null>;
  answered_at: Date | null;
  escalated_at: Date | null;
  decided_at: Date | null;
  decision_reason: string | null;
  decision_reason_token: Generated<string | null>;
  updated_at: Generated<Date>;
}

/** Identifiers that must never be listed: the blind index of the value, never the value. */
export interface SafelistTable {
  id: string;
  label: string;
  blind_index: Buffer;
  index_version: number;
  /** Clear only in rows written before migration 0035, until start-up seals them into `reason_token`. */
  reason: string | null;
  reason_token: string | null;
  operator_id: string | null;
  created_at: Generated<Date>;
}

/** One row per scheduled job (src/jobs): its cross-instance lock and its last run. */
export interface JobRunsTable {
  name: string;
  locked_until: Date | null;
  locked_by: string | null;
  last_started_at: Date | null;
  last_finished_at: Date | null;
  last_status: string | null;
  last_error: string | null;
  last_items: number | null;
  runs: Generated<number>;
  failures: Generated<number>;
}

/** Which bank-list entry a member company is (issue 14): `public_report.published` goes to it. */
export interface CompanyBanksTable {
  company_id: string;
  bank_id: string;
  created_at: Generated<Date>;
}

/** A company's watched identifier (src/modules/watchlists): stored like a report identifier. */
export interface WatchlistEntriesTable {
  id: string;
  company_id: string;
  label: string;
  value_token: string;
  blind_index: Buffer;
  nuban_index: Buffer | null;
  index_version: number;
  index_key_version: number;
  /** Clear only in rows written before migration 0035, until start-up seals them into `ref_token`. */
  ref: string | null;
  ref_token: string | null;
  created_at: Generated<Date>;
}

export interface WatchlistImportsTable {
  id: string;
  company_id: string;
  status: 'running' | 'interrupted' | 'done';
  processed_rows: Generated<number>;
  imported_rows: Generated<number>;
  failed_rows: Generated<number>;
  /** The request reading a file into it, and until when (renewed with each batch): one file at a time. */
  receiving_by: string | null;
  receiving_until: Date | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface ScreeningJobsTable {
  id: string;
  company_id: string;
  key_id: string | null;
  user_id: string | null;
  status: 'queued' | 'running' | 'done' | 'failed';
  file_complete: Generated<boolean>;
  chunks: Generated<number>;
  next_chunk: Generated<number>;
  rows_read: Generated<number>;
  rows_screened: Generated<number>;
  matches: Generated<number>;
  errors: Generated<number>;
  failure: string | null;
  lease_owner: string | null;
  lease_until: Date | null;
  created_at: Generated<Date>;
  started_at: Date | null;
  finished_at: Date | null;
  updated_at: Generated<Date>;
}

export interface ScreeningChunksTable {
  job_id: string;
  seq: number;
  rows: number;
  body_token: string;
}

export interface ScreeningMatchesTable {
  job_id: string;
  line: number;
  row_token: string;
  total_reports: number;
  total_public_reports: number;
  distinct_companies: number;
  open_disputes: number;
  risk_level: string;
  first_reported_at: Date | null;
  last_reported_at: Date | null;
}

export interface ScreeningErrorsTable {
  job_id: string;
  line: number;
  message: string;
}

export interface WatchlistImportErrorsTable {
  import_id: string;
  row: number;
  message: string;
}

export type WebhookEndpointStatus = 'active' | 'disabled';

export interface WebhookEndpointsTable {
  id: string;
  company_id: string;
  url: string;
  events: string[];
  secret_token: string;
  previous_secret_token: string | null;
  previous_secret_until: Date | null;
  status: Generated<WebhookEndpointStatus>;
  failing_since: Date | null;
  disabled_at: Date | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

/** The transactional outbox: one row per event for one company. */
export interface WebhookEventsTable {
  id: string;
  company_id: string;
  type: string;
  report_id: string;
  watchlist_entry_id: string | null;
  payload: unknown;
  created_at: Generated<Date>;
}

export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface WebhookDeliveriesTable {
  id: string;
  event_id: string;
  endpoint_id: string;
  status: Generated<WebhookDeliveryStatus>;
  attempts: Generated<number>;
  next_attempt_at: Generated<Date>;
  locked_until: Date | null;
  delivered_at: Date | null;
  created_at: Generated<Date>;
}

export interface WebhookAttemptsTable {
  id: string;
  delivery_id: string;
  attempt: number;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  created_at: Generated<Date>;
}

export interface Database {
  banks: BanksTable;
  companies: CompaniesTable;
  operators: OperatorsTable;
  api_keys: ApiKeysTable;
  encryption_keys: EncryptionKeysTable;
  crypto_keys: CryptoKeysTable;
  reports: ReportsTable;
  report_counts: ReportCountsTable;
  report_cards: ReportCardsTable;
  public_report_cards: PublicReportCardsTable;
  report_identifiers: ReportIdentifiersTable;
  idempotency_keys: IdempotencyKeysTable;
  service_instances: ServiceInstancesTable;
  audit_events: AuditEventsTable;
  uploads: UploadsTable;
  upload_blobs: UploadBlobsTable;
  public_reports: PublicReportsTable;
  public_report_identifiers: PublicReportIdentifiersTable;
  review_requests: ReviewRequestsTable;
  users: UsersTable;
  user_invitations: UserInvitationsTable;
  user_sessions: UserSessionsTable;
  user_recovery_codes: UserRecoveryCodesTable;
  disputes: DisputesTable;
  safelist: SafelistTable;
  job_runs: JobRunsTable;
  company_banks: CompanyBanksTable;
  watchlist_entries: WatchlistEntriesTable;
  watchlist_imports: WatchlistImportsTable;
  watchlist_import_errors: WatchlistImportErrorsTable;
  screening_jobs: ScreeningJobsTable;
  screening_chunks: ScreeningChunksTable;
  screening_matches: ScreeningMatchesTable;
  screening_errors: ScreeningErrorsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
}
