import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { AsyncCommits } from '../../db/wal-flusher.js';
import type { Principal } from '../../http/auth.js';
import { AppError } from '../../http/errors.js';
import type { IdentifierLabel } from '../../identifiers/normalize.js';
import type { SealedIdentifiers } from '../../identifiers/sealed-identifiers.js';
import type { ReportAttachments } from '../uploads/attachments.js';
import { searchReports } from './search.repository.js';
import { withSignedAttachments } from './search-attachments.js';

const MESSAGE = 'Reports fetched successfully';

/** Search by one identifier: normalised exactly as on create, looked up through its blind index, audited. */
export function createSearchService(deps: {
  db: Kysely<Database>;
  identifiers: SealedIdentifiers;
  attachments: Pick<ReportAttachments, 'links'>;
  /** Told of each search, whose audit row commits asynchronously (see search.repository.ts). */
  asyncCommits: Pick<AsyncCommits, 'note'>;
  /** The verdict's half-life (REDFLAG_RISK_HALF_LIFE_DAYS). */
  riskHalfLifeDays: number;
}) {
  return {
    /** The whole response envelope as JSON text (built by PostgreSQL, see search.repository.ts). */
    async search(principal: Principal, requestId: string, label: IdentifierLabel, value: string): Promise<string> {
      const found = deps.identifiers.searchKey(label, value);
      if (!found.ok) throw AppError.validation([{ field: 'value', message: found.message }]);
      const { body, hasAttachments } = await searchReports(
        deps.db,
        found.key,
        {
          companyId: principal.role === 'company' ? principal.companyId : null,
          operatorId: principal.role === 'operator' ? principal.operatorId : null,
          keyId: principal.keyId,
          userId: principal.user?.userId ?? null,
          requestId,
        },
        MESSAGE,
        deps.riskHalfLifeDays,
      );
      deps.asyncCommits.note();
      // Links to evidence are signed per response, which PostgreSQL cannot do: only then is the body re-parsed.
      return hasAttachments ? withSignedAttachments(body, deps.attachments.links) : body;
    },
  };
}

export type SearchService = ReturnType<typeof createSearchService>;
