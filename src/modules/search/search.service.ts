import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { AsyncCommits } from '../../db/wal-flusher.js';
import type { Principal } from '../../http/auth.js';
import { AppError } from '../../http/errors.js';
import { IDENTIFIER_LABELS } from '../../identifiers/labels.js';
import type { IdentifierLabel } from '../../identifiers/normalize.js';
import type { SealedIdentifiers } from '../../identifiers/sealed-identifiers.js';
import type { ReportAttachments } from '../uploads/attachments.js';
import { type BatchKey, findMatchesAuditingMisses } from './batch.repository.js';
import type { CheckedBatchItem } from './batch-items.js';
import { type SearchResult, searchReportsAudited, searchReportsMany } from './search.repository.js';
import { withSignedAttachments } from './search-attachments.js';
import type { SearchAudit } from './search-audit.repository.js';
import { createSearchAuditWriter } from './search-audit-writer.js';
import { createSearchCoalescer, inShapeGroups } from './search-coalescer.js';
import { verdictOfInputs } from './verdict.js';

const LABELS = new Set<string>(IDENTIFIER_LABELS);

/** Search by one identifier: normalised exactly as on create, looked up through its blind index, audited. */
export function createSearchService(deps: {
  db: Kysely<Database>;
  identifiers: SealedIdentifiers;
  attachments: Pick<ReportAttachments, 'links'>;
  /** Told of each search, whose audit row commits asynchronously (see search-audit.repository.ts). */
  asyncCommits: Pick<AsyncCommits, 'note'>;
  /** The verdict's half-life (REDFLAG_RISK_HALF_LIFE_DAYS). */
  riskHalfLifeDays: number;
  /**
   * How many search statements of one batch run at once (each up to 16 of its searches): enough to
   * overlap round trips, and fewer than the process's connections (batchConcurrencyFor). The
   * embedded engine has one connection: there a batch's statements run one after another.
   */
  batchConcurrency: number;
  /** How many single-search statements run at once; searches arriving beyond it share the next ones (searchesInFlightFor). */
  searchesInFlight: number;
  /** How long a single search may wait for one of those (search-coalescer.ts); none on the embedded engine. */
  searchWaitLimitMs?: number | undefined;
}) {
  const auditOf = (principal: Principal, requestId: string): SearchAudit => ({
    companyId: principal.role === 'company' ? principal.companyId : null,
    operatorId: principal.role === 'operator' ? principal.operatorId : null,
    keyId: principal.keyId,
    userId: principal.user?.userId ?? null,
    requestId,
  });

  const batchAudits = createSearchAuditWriter(deps.db, deps.asyncCommits);

  const runBatchGroup = (keys: BatchKey['key'][]) => searchReportsMany(deps.db, keys, deps.riskHalfLifeDays);
  // Single searches: the statement that answers them writes their audit rows too (decision 0097).
  const coalescer = createSearchCoalescer<SearchResult, SearchAudit>({
    inFlight: deps.searchesInFlight,
    waitLimitMs: deps.searchWaitLimitMs,
    run: async (keys, searches) => {
      try {
        return await searchReportsAudited(deps.db, keys, searches, deps.riskHalfLifeDays);
      } finally {
        // Also when reading the answers failed after the statement committed: its rows wait for a WAL flush.
        deps.asyncCommits.note();
      }
    },
  });

  /** Links to evidence are signed per response, which PostgreSQL cannot do: only then is the body re-parsed. */
  const withLinks = ({ body, hasAttachments }: SearchResult) =>
    hasAttachments ? withSignedAttachments(body, deps.attachments.links) : body;

  /** A batch item's answer, given only once its audit row is written. */
  async function answerBatchItem(key: BatchKey['key'], found: SearchResult, audit: SearchAudit): Promise<string> {
    await batchAudits.write({ ...audit, label: key.label, blindIndex: key.indexes[0] as Buffer, resultCount: found.resultCount });
    return withLinks(found);
  }

  /** What a search that matches nothing answers, word for word (test/search.batch.test.ts compares them). */
  const emptyData = () =>
    JSON.stringify({
      reports: [],
      publicReports: [],
      summary: {
        totalReports: 0,
        totalPublicReports: 0,
        fraudTypes: {},
        firstReportedAt: null,
        lastReportedAt: null,
        distinctCompanies: 0,
        openDisputes: 0,
        riskLevel: verdictOfInputs(null, new Date(), deps.riskHalfLifeDays),
      },
    });

  return {
    /** The search's `data` as JSON text (built by PostgreSQL, see search.repository.ts). */
    async search(principal: Principal, requestId: string, label: IdentifierLabel, value: string): Promise<string> {
      const found = deps.identifiers.searchKey(label, value);
      if (!found.ok) throw AppError.validation([{ field: 'value', message: found.message }]);
      return withLinks(await coalescer.search(found.key, auditOf(principal, requestId)));
    },

    /**
     * Many searches in one call: each item's `data` exactly as a single search answers it, or its
     * own error; one audit row per searchable item. One statement finds which items match anything
     * at all and audits the rest, which are answered empty; only the matching ones run the full search.
     */
    async batch(principal: Principal, requestId: string, items: readonly CheckedBatchItem[]): Promise<string[]> {
      const results: string[] = new Array(items.length);
      const keys: BatchKey[] = [];
      // An item's error has the code and field a whole request's would (API.md), in its place.
      const itemError = (field: string, message: string) =>
        JSON.stringify({ error: { code: 'VALIDATION_FAILED', field, message } });
      items.forEach((checked, n) => {
        if (!checked.ok) {
          results[n] = itemError(checked.field, checked.message);
          return;
        }
        const { item } = checked;
        if (!LABELS.has(item.identifier)) {
          results[n] = itemError(`items/${n}/identifier`, `must be one of ${IDENTIFIER_LABELS.join(', ')}`);
          return;
        }
        const found = deps.identifiers.searchKey(item.identifier as IdentifierLabel, item.value);
        if (found.ok) keys.push({ n, key: found.key });
        else results[n] = itemError(`items/${n}/value`, found.message);
      });
      const audit = auditOf(principal, requestId);
      const matching = keys.length ? await findMatchesAuditingMisses(deps.db, keys, audit) : new Set<number>();
      const groups = inShapeGroups(
        keys.filter(({ n }) => matching.has(n)),
        (hit) => hit.key,
      );
      for (let start = 0; start < groups.length; start += deps.batchConcurrency) {
        await Promise.all(
          groups.slice(start, start + deps.batchConcurrency).map(async (group) => {
            const found = await runBatchGroup(group.map((hit) => hit.key));
            await Promise.all(
              group.map(async ({ n, key }, at) => {
                results[n] = await answerBatchItem(key, found[at] as SearchResult, audit);
              }),
            );
          }),
        );
      }
      const empty = emptyData();
      for (const { n } of keys) if (!matching.has(n)) results[n] = empty;
      if (keys.length) deps.asyncCommits.note();
      // The caller's own reference goes back with its item, first in the object.
      return results.map((json, n) => {
        const checked = items[n];
        const ref = checked?.ok ? checked.item.ref : checked?.ref;
        return ref === undefined ? json : `{"ref":${JSON.stringify(ref)},${json.slice(1)}`;
      });
    },
  };
}

export type SearchService = ReturnType<typeof createSearchService>;

/** Up to 4 of a batch's search statements (16 searches each) at once, leaving at least one of `poolSize` connections to other requests. */
export function batchConcurrencyFor(poolSize: number): number {
  return Math.max(1, Math.min(4, poolSize - 1));
}
