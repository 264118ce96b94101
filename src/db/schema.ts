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

export interface Database {
  banks: BanksTable;
  companies: CompaniesTable;
  operators: OperatorsTable;
  api_keys: ApiKeysTable;
}
