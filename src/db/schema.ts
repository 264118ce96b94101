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

export interface Database {
  banks: BanksTable;
  companies: CompaniesTable;
  operators: OperatorsTable;
  api_keys: ApiKeysTable;
  encryption_keys: EncryptionKeysTable;
}
