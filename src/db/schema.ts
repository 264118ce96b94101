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

export interface ReportsTable {
  id: string;
  company_id: string;
  user_id: string | null;
  fraud_type: string;
  fraud_reason: string;
  show_uploader_info: Generated<boolean>;
  attachments: Generated<string[]>;
  status: 'draft' | 'published';
  /** When it went on the list (a draft published later is "reported" then); search orders by it. */
  published_at: Date | null;
  listing_status: Generated<'listed' | 'exited'>;
  exited_list_at: Date | null;
  exit_list_reason: string | null;
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
}

export interface AuditEventsTable {
  id: Generated<string>;
  company_id: string | null;
  operator_id: string | null;
  key_id: string;
  action: string;
  label: string | null;
  blind_index: Buffer | null;
  report_id: string | null;
  result_count: number | null;
  request_id: string;
  created_at: Generated<Date>;
}

/** An evidence file's metadata; its bytes are in the blob store under `storage_key`. */
export interface UploadsTable {
  id: string;
  company_id: string;
  content_type: string;
  size: number;
  sha256: Buffer;
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
  fraud_reason: string;
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
  rejection_reason: string | null;
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
}

/** Maintained by a trigger on reports (migration 0006): the list's totals without counting rows. */
export interface ReportCountsTable {
  company_id: string;
  status: string;
  listing_status: string;
  fraud_type: string;
  n: number;
}

export interface Database {
  banks: BanksTable;
  companies: CompaniesTable;
  operators: OperatorsTable;
  api_keys: ApiKeysTable;
  encryption_keys: EncryptionKeysTable;
  reports: ReportsTable;
  report_counts: ReportCountsTable;
  report_identifiers: ReportIdentifiersTable;
  idempotency_keys: IdempotencyKeysTable;
  audit_events: AuditEventsTable;
  uploads: UploadsTable;
  upload_blobs: UploadBlobsTable;
  public_reports: PublicReportsTable;
  public_report_identifiers: PublicReportIdentifiersTable;
}
