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

export interface Database {
  banks: BanksTable;
}
