import bankData from '../modules/banks/banks.data.json' with { type: 'json' };

export interface BankEntry {
  slug: string;
  name: string;
  code: string;
  category: string;
}

/** Slug → bank, as the account normaliser needs it. Built once and passed in, so normalisers stay pure. */
export type BankDirectory = ReadonlyMap<string, BankEntry>;

export function createBankDirectory(banks: Iterable<BankEntry>): BankDirectory {
  const directory = new Map<string, BankEntry>();
  for (const bank of banks)
    directory.set(bank.slug, { slug: bank.slug, name: bank.name, code: bank.code, category: bank.category });
  return directory;
}

/** The directory of the shipped bank list (the same data `migrate` loads into the banks table). */
export function shippedBankDirectory(): BankDirectory {
  return createBankDirectory(bankData.banks);
}
