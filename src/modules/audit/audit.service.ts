import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { dateRange } from '../reports/date-range.js';
import { listCompanyAudit } from './audit.repository.js';
import type { AuditPseudonyms } from './audit-pseudonyms.js';

export interface AuditQuery {
  page: number;
  limit: number;
  action?: string | undefined;
  excludeAction?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

/** A company's own audit trail, as it may read it: its own pseudonyms, never another party's ids. */
export function createAuditService(deps: { db: Kysely<Database>; pseudonyms: AuditPseudonyms }) {
  const { db, pseudonyms } = deps;
  return {
    async listForCompany(companyId: string, query: AuditQuery) {
      const { page, limit, action, excludeAction, from, to } = query;
      const result = await listCompanyAudit(
        db,
        companyId,
        { action, excludeAction, ...dateRange(from, to) },
        (page - 1) * limit,
        limit,
      );
      const data = result.rows.map((r) => ({
        id: pseudonyms.ofEvent(companyId, r.id),
        action: r.action,
        keyId: r.key_id,
        userId: r.user_id,
        actor: r.actor,
        label: r.label,
        blindIndex: r.blind_index ? pseudonyms.ofValue(companyId, Buffer.from(r.blind_index)) : null,
        reportId: r.report_id,
        subjectId: r.subject_id,
        resultCount: r.result_count,
        // Another party's request id may be their own correlation id (a customer reference, say).
        requestId: r.actor === 'company' || r.actor === 'system' ? r.request_id : null,
        createdAt: r.created_at.toISOString(),
      }));
      return { data, meta: { total: result.total, page, limit } };
    },
  };
}

export type AuditService = ReturnType<typeof createAuditService>;
