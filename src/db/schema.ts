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
  encryption_keys: EncryptionKeysTable;
}
