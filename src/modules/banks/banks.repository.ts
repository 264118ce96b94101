import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';
import bankData from './banks.data.json' with { type: 'json' };

export interface BankRow {
  id: string;
  name: string;
  slug: string;
  code: string;
  nip_code: string | null;
  category: string;
}

/** Loads the shipped bank list: inserts new institutions, updates changed ones, keeps ids stable. */
export async function syncBanks(db: Kysely<Database>): Promise<void> {
  const rows = bankData.banks.map((bank) => ({
    name: bank.name,
    slug: bank.slug,
    code: bank.code,
    nip_code: bank.nipCode,
    category: bank.category,
  }));
  await db
    .insertInto('banks')
    .values(rows)
    .onConflict((oc) =>
      oc
        .column('slug')
        .doUpdateSet({
          name: sql`excluded.name`,
          code: sql`excluded.code`,
          nip_code: sql`excluded.nip_code`,
          category: sql`excluded.category`,
          updated_at: sql`now()`,
        })
        // Unchanged rows are left alone, so a restart writes nothing.
        .where(
          sql<boolean>`(banks.name, banks.code, banks.nip_code, banks.category) is distinct from (excluded.name, excluded.code, excluded.nip_code, excluded.category)`,
        ),
    )
    .execute();
}

export function listBanks(db: Kysely<Database>): Promise<BankRow[]> {
  return (
    db
      .selectFrom('banks')
      .select(['id', 'name', 'slug', 'code', 'nip_code', 'category'])
      // Alphabetical as people read it ("AB Microfinance", "Abbey Mortgage", "AKU Microfinance"), and
      // the same on every engine whatever the database's collation.
      .orderBy(sql`lower(name) collate "C"`)
      .orderBy('slug')
      .execute()
  );
}

/** A bank of the list by its slug, its row locked while a company is linked to it (one holder a bank). */
export function lockBankBySlug(trx: Transaction<Database>, slug: string) {
  return trx.selectFrom('banks').select(['id', 'name', 'slug']).where('slug', '=', slug).forNoKeyUpdate().executeTakeFirst();
}
