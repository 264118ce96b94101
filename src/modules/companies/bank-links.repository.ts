import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';

type Db = Kysely<Database> | Transaction<Database>;

/** The company linked to a bank, if any (a bank is linked to at most one company). */
export async function findBankHolder(db: Db, bankId: string): Promise<string | undefined> {
  const row = await db.selectFrom('company_banks').select('company_id').where('bank_id', '=', bankId).executeTakeFirst();
  return row?.company_id;
}

/** Links a company to a bank, replacing the company's earlier link if it had one. */
export async function linkCompanyToBank(db: Db, companyId: string, bankId: string): Promise<void> {
  await db
    .insertInto('company_banks')
    .values({ company_id: companyId, bank_id: bankId })
    .onConflict((oc) => oc.column('company_id').doUpdateSet({ bank_id: bankId }))
    .execute();
}
