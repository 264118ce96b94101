import type { Kysely } from 'kysely';
import type { SealedValueError } from '../../crypto/errors.js';
import type { Database } from '../../db/schema.js';
import type { SealedIdentifiers } from '../../identifiers/sealed-identifiers.js';
import { recordAudit } from '../audit/audit.repository.js';
import type { ReportAttachments } from '../uploads/attachments.js';
import { dateRange } from './date-range.js';
import { listingPeriod } from './listing.service.js';
import type { FraudType, ListingStatus, ReportStatus } from './report-values.js';
import { reportView as baseView, type IdentifierView, tokensByReport } from './report-views.js';
import * as repo from './reports.repository.js';
import type { Actor, ReportsService } from './reports.service.js';
import { openReason, type ReasonSealer } from './sealed-reason.js';
import { openExitReason } from './sealed-texts.js';

export interface SubmissionsQuery {
  page: number;
  limit: number;
  fraudType?: FraudType | undefined;
  status?: ReportStatus | undefined;
  listingStatus?: ListingStatus | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

/** A company reading its own submissions: list, one with tokens, one decoded. */
export function createSubmissionsService(deps: {
  db: Kysely<Database>;
  identifiers: SealedIdentifiers;
  reports: ReportsService;
  /** Opens each reason, and exit reason, for its owner (or an operator). */
  reasons: Pick<ReasonSealer, 'open'>;
  attachments: Pick<ReportAttachments, 'links'>;
  /** Told of each identifier whose token does not open (it is served marked `unreadable`). */
  onUnreadable: (error: SealedValueError) => void;
  /** The listing period (REDFLAG_LISTING_DAYS): each listed report says when it ends. */
  listingDays: number;
}) {
  const { db, identifiers, reports } = deps;

  /** The stored upload ids become signed download links, fresh for each response. */
  const reportView = (row: repo.ReportRow, ids: IdentifierView[], options: { uploaderVisible: boolean }) => {
    const period = listingPeriod(row, deps.listingDays);
    return {
      ...baseView(row, ids, {
        ...options,
        fraudReason: openReason(deps.reasons, row),
        exitListReason: openExitReason(deps.reasons, row),
      }),
      attachments: deps.attachments.links(row.attachments),
      listedUntil: period?.endsAt.toISOString() ?? null,
      renewableFrom: period?.renewableFrom.toISOString() ?? null,
    };
  };

  async function withTokens(companyId: string | undefined, id: string) {
    const row = await reports.requireOwn(id, companyId);
    const tokens = tokensByReport(await repo.findIdentifiers(db, [row.id])).get(row.id) ?? [];
    return { row, tokens };
  }

  return {
    async list(companyId: string, query: SubmissionsQuery) {
      const filters = {
        companyId,
        fraudType: query.fraudType,
        status: query.status,
        listingStatus: query.listingStatus,
        ...dateRange(query.from, query.to),
      };
      const rows = await repo.listSubmissions(db, filters, (query.page - 1) * query.limit, query.limit);
      // A page past the end has no row to carry the total.
      const total = rows[0]?.total ?? (query.page > 1 ? await repo.countSubmissions(db, filters) : 0);
      const tokens = tokensByReport(
        await repo.findIdentifiers(
          db,
          rows.map((r) => r.id),
        ),
      );
      return {
        data: rows.map((row) => reportView(row, tokens.get(row.id) ?? [], { uploaderVisible: true })),
        meta: { total, page: query.page, limit: query.limit },
      };
    },

    /** Also used by operators (no company) after exit/relist. */
    async get(companyId: string | undefined, id: string) {
      const { row, tokens } = await withTokens(companyId, id);
      return reportView(row, tokens, { uploaderVisible: companyId !== undefined });
    },

    /**
     * One submission with clear values: its company's own (`actor.companyId`), or any for the
     * operators deciding a dispute about it. Audited either way, in the owning company's trail too,
     * so a member sees when the operators read its report.
     */
    async decode(actor: Actor, id: string) {
      const { row, tokens } = await withTokens(actor.operatorId ? undefined : actor.companyId, id);
      const clear = identifiers.openEach(tokens, { companyId: row.company_id, recordId: row.id }, deps.onUnreadable);
      await recordAudit(db, { ...actor, companyId: row.company_id, action: 'decode', reportId: row.id });
      return reportView(row, clear, { uploaderVisible: true });
    },
  };
}

export type SubmissionsService = ReturnType<typeof createSubmissionsService>;
