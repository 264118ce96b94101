import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { AppError } from '../../http/errors.js';
import { lockBankBySlug } from '../banks/banks.repository.js';
import { isUuid } from '../ids.js';
import { findBankHolder, linkCompanyToBank } from './bank-links.repository.js';
import { findCompanyById } from './companies.repository.js';

export interface BankLinkView {
  companyId: string;
  bank: { id: string; name: string; slug: string };
}

/**
 * Which bank-list entry a member company is, set by an operator: a published public report naming
 * that bank in `financialInstitution` sends `public_report.published` to the member.
 */
export function createBankLinksService({ db }: { db: Kysely<Database> }) {
  return {
    async link(companyId: string, bankSlug: string): Promise<BankLinkView> {
      const company = isUuid(companyId) ? await findCompanyById(db, companyId.toLowerCase()) : undefined;
      if (!company) throw AppError.notFound('Company not found');
      // Under the bank's row lock: two members linked to one bank at once get one link and one 409
      // (the second used to meet the unique index as a 500).
      const bank = await db.transaction().execute(async (trx) => {
        const found = await lockBankBySlug(trx, bankSlug.trim().toLowerCase());
        if (!found) throw AppError.validation([{ field: 'bankSlug', message: 'is not a slug from the bank list' }]);
        const holder = await findBankHolder(trx, found.id);
        if (holder && holder !== company.id) {
          throw new AppError('INVALID_STATE', 'Another company is already linked to this bank');
        }
        await linkCompanyToBank(trx, company.id, found.id);
        return found;
      });
      return { companyId: company.id, bank };
    },
  };
}

export type BankLinksService = ReturnType<typeof createBankLinksService>;
