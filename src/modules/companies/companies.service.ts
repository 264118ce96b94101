import type { Kysely } from 'kysely';
import type { CompanyStatus, Database } from '../../db/schema.js';
import { AppError } from '../../http/errors.js';
import { isUuid } from '../ids.js';
import type { KeyEvents } from '../keys/key-events.js';
import { type ApiKeyView, issueApiKey } from '../keys/keys.service.js';
import { unseenProblem, visibleLength } from '../trimmed-text.js';
import {
  type CompanyRow,
  countCompanies,
  findCompanyById,
  insertCompany,
  listCompanies,
  lockAndFindCompanyNamed,
  setCompanyStatus,
} from './companies.repository.js';

export interface CompanyView {
  id: string;
  businessName: string;
  status: CompanyStatus;
  /** Requests a minute for each key; null = the service default. */
  rateLimitPerMinute: number | null;
  createdAt: string;
  updatedAt: string;
}

export const MAX_BUSINESS_NAME_LENGTH = 200;
export const MAX_RATE_LIMIT_PER_MINUTE = 1_000_000;
/** The CLI's pages come here unchecked by a schema. */
const MAX_PAGE = 1_000_000;

export const MAX_PAGE_SIZE = 100;

function toView(row: CompanyRow): CompanyView {
  return {
    id: row.id,
    businessName: row.business_name,
    status: row.status,
    rateLimitPerMinute: row.rate_limit_per_minute,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export type CompaniesService = ReturnType<typeof createCompaniesService>;

export function createCompaniesService({ db, events }: { db: Kysely<Database>; events: KeyEvents }) {
  async function changeStatus(id: string, status: CompanyStatus): Promise<CompanyView> {
    const row = isUuid(id) ? await setCompanyStatus(db, id, status) : undefined;
    if (!row) throw AppError.notFound('Company not found');
    // Cached verdicts for its keys carry the old status.
    await events.publish({ kind: 'company', companyId: id });
    return toView(row);
  }

  return {
    /** A company and its first key, in one transaction: a company never exists without a way in. */
    async create(input: {
      businessName: string;
      rateLimitPerMinute?: number | null | undefined;
      /** A second company of the same name is almost always a script run twice; it takes asking. */
      allowDuplicate?: boolean | undefined;
    }): Promise<{ company: CompanyView; key: ApiKeyView; apiKey: string }> {
      const businessName = input.businessName.trim().replace(/\s+/g, ' ');
      // Shown to every member beside each report: it must be there to see, and read as it is written.
      const problem = unseenProblem(businessName);
      if (problem) throw AppError.validation([{ field: 'businessName', message: problem }]);
      if (visibleLength(businessName) === 0 || businessName.length > MAX_BUSINESS_NAME_LENGTH) {
        throw AppError.validation([{ field: 'businessName', message: `must be 1 to ${MAX_BUSINESS_NAME_LENGTH} characters` }]);
      }
      const rateLimitPerMinute = input.rateLimitPerMinute ?? null;
      if (
        rateLimitPerMinute !== null &&
        (!Number.isInteger(rateLimitPerMinute) || rateLimitPerMinute < 1 || rateLimitPerMinute > MAX_RATE_LIMIT_PER_MINUTE)
      ) {
        throw AppError.validation([
          { field: 'rateLimitPerMinute', message: `must be an integer from 1 to ${MAX_RATE_LIMIT_PER_MINUTE}` },
        ]);
      }
      return db.transaction().execute(async (trx) => {
        const existing = await lockAndFindCompanyNamed(trx, businessName);
        if (existing && !input.allowDuplicate) {
          throw new AppError(
            'COMPANY_NAME_TAKEN',
            `A company named "${businessName}" already exists (${existing}); send allowDuplicate: true to create another of the same name`,
          );
        }
        const row = await insertCompany(trx, { businessName, rateLimitPerMinute });
        const issued = await issueApiKey(trx, { role: 'company', companyId: row.id });
        return { company: toView(row), ...issued };
      });
    },

    async get(id: string): Promise<CompanyView> {
      const row = isUuid(id) ? await findCompanyById(db, id) : undefined;
      if (!row) throw AppError.notFound('Company not found');
      return toView(row);
    },

    async list(options: {
      page: number;
      limit: number;
      status?: CompanyStatus | undefined;
    }): Promise<{ data: CompanyView[]; meta: { total: number; page: number; limit: number } }> {
      const { page, limit, status } = options;
      if (!Number.isInteger(page) || page < 1 || page > MAX_PAGE) {
        throw AppError.validation([{ field: 'page', message: `must be an integer from 1 to ${MAX_PAGE}` }]);
      }
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
        throw AppError.validation([{ field: 'limit', message: `must be an integer from 1 to ${MAX_PAGE_SIZE}` }]);
      }
      const offset = (page - 1) * limit;
      const { rows, total } = await listCompanies(db, { offset, limit, status });
      // A page past the end has no row to carry the total.
      const count = rows.length === 0 && offset > 0 ? await countCompanies(db, status) : total;
      return { data: rows.map(toView), meta: { total: count, page, limit } };
    },

    suspend: (id: string) => changeStatus(id, 'suspended'),
    activate: (id: string) => changeStatus(id, 'active'),
  };
}
