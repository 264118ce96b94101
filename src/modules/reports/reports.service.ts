import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { Database, ReportsTable } from '../../db/schema.js';
import { AppError, type FieldError } from '../../http/errors.js';
import type { IdentifierInput, SealedIdentifiers } from '../../identifiers/sealed-identifiers.js';
import { auditRow, recordAudit } from '../audit/audit.repository.js';
import type { ReportAttachments } from '../uploads/attachments.js';
import { checkFraudReason } from './fraud-reason.js';
import { abandonIdempotent, completeIdempotent, hashRequest, type ResponseSealer, startIdempotent } from './idempotency.js';
import type { FraudType, ReportStatus } from './report-values.js';
import * as repo from './reports.repository.js';

export interface Actor {
  keyId: string;
  requestId: string;
  companyId?: string;
  operatorId?: string;
}

export interface CreateReportInput {
  fraudType: FraudType;
  fraudReason: string;
  identifiers: IdentifierInput[];
  attachments?: string[] | undefined;
  showUploaderInfo?: boolean | undefined;
  userId?: string | undefined;
  status?: ReportStatus | undefined;
}

export type UpdateDraftInput = Partial<Omit<CreateReportInput, 'status' | 'userId'>> & { userId?: string | null | undefined };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A report id as stored (lower case); anything that is not a UUID is simply not found. */
function reportIdFrom(id: string): string {
  if (!UUID.test(id)) throw AppError.notFound('Report not found');
  return id.toLowerCase();
}

export function createReportsService(deps: {
  db: Kysely<Database>;
  identifiers: SealedIdentifiers;
  /** Seals stored idempotent responses (the keyring). */
  responses: ResponseSealer;
  /** Upload URLs in, upload ids stored, signed download links out. */
  attachments: ReportAttachments;
}) {
  const { db, identifiers } = deps;

  async function requireOwn(id: string, companyId: string | undefined, forUpdate = false, trx: Kysely<Database> = db) {
    const report = await repo.findReport(trx, reportIdFrom(id), companyId, forUpdate);
    if (!report) throw AppError.notFound('Report not found');
    return report;
  }

  async function createReport(
    actor: Actor & { companyId: string; businessName: string },
    input: CreateReportInput,
    idempotency?: { companyId: string; key: string; rowId: string },
  ): Promise<CreatedReportView> {
    const errors: FieldError[] = [];
    const fraudReason = checkFraudReason(input.fraudReason, errors) as string;
    const reportId = randomUUID();
    const sealed = identifiers.seal(input.identifiers, { companyId: actor.companyId, recordId: reportId }, errors);
    const owner = { companyId: actor.companyId, recordId: reportId };
    const attachments = await deps.attachments.resolve(input.attachments ?? [], owner, errors);
    if (errors.length > 0) throw AppError.validation(errors);

    const insert = async (conn: Kysely<Database>): Promise<CreatedReportView> => {
      const row = await repo.insertReportWithIdentifiers(
        conn,
        {
          id: reportId,
          company_id: actor.companyId,
          user_id: input.userId ?? null,
          fraud_type: input.fraudType,
          fraud_reason: fraudReason,
          show_uploader_info: input.showUploaderInfo ?? false,
          attachments,
          status: input.status ?? 'published',
        },
        sealed.map((s, position) => ({ ...s.row, report_id: reportId, position })),
        auditRow({ ...actor, action: 'create', reportId }),
      );
      return {
        id: row.id,
        status: row.status,
        exitedListAt: row.exited_list_at?.toISOString() ?? null,
        exitListReason: row.exit_list_reason,
        fraudType: row.fraud_type,
        fraudReason: row.fraud_reason,
        companyId: row.company_id,
        updatedAt: row.updated_at.toISOString(),
        createdAt: row.created_at.toISOString(),
        identifiers: sealed.map((s) => ({ label: s.label, value: s.value })),
        attachments: row.attachments,
        reportedBy: actor.businessName,
      };
    };
    // The common case is one statement; attachments and a stored idempotent response land with the
    // report in one transaction, or not at all.
    if (!idempotency && attachments.length === 0) return insert(db);
    return db.transaction().execute(async (trx) => {
      const created = await insert(trx);
      if (attachments.length > 0) await deps.attachments.attach(trx, owner, attachments);
      if (idempotency) await completeIdempotent(trx, idempotency, 201, created, deps.responses);
      return created;
    });
  }

  return {
    /**
     * Creates a report. With an idempotency key the first successful response is stored with the
     * report (one transaction) and replayed for the same key and body.
     */
    async create(
      actor: Actor & { companyId: string; businessName: string },
      input: CreateReportInput,
      idempotencyKey?: string,
    ): Promise<{ replayed: boolean; report: CreatedReportView }> {
      // Upload ids are stored (and replayed); the links are signed afresh for each response.
      const withLinks = (report: CreatedReportView) => ({
        ...report,
        attachments: deps.attachments.links(report.attachments ?? []),
      });
      if (idempotencyKey === undefined) return { replayed: false, report: withLinks(await createReport(actor, input)) };
      const scope = { companyId: actor.companyId, key: idempotencyKey, requestHash: hashRequest(input) };
      const start = await startIdempotent(db, scope, deps.responses);
      if (start.kind === 'replay') return { replayed: true, report: withLinks(start.body as CreatedReportView) };
      try {
        return { replayed: false, report: withLinks(await createReport(actor, input, { ...scope, rowId: start.rowId })) };
      } catch (error) {
        await abandonIdempotent(db, scope);
        throw error;
      }
    },

    requireOwn,

    async updateDraft(actor: Actor & { companyId: string }, id: string, input: UpdateDraftInput) {
      // Sealed values are bound to the stored id, so the path's spelling of it must not leak in.
      const reportId = reportIdFrom(id);
      const errors: FieldError[] = [];
      const fraudReason = checkFraudReason(input.fraudReason, errors);
      const sealed = input.identifiers
        ? identifiers.seal(input.identifiers, { companyId: actor.companyId, recordId: reportId }, errors)
        : undefined;
      const owner = { companyId: actor.companyId, recordId: reportId };
      const attachments = input.attachments ? await deps.attachments.resolve(input.attachments, owner, errors) : undefined;
      if (errors.length > 0) throw AppError.validation(errors);
      return db.transaction().execute(async (trx) => {
        const report = await requireOwn(reportId, actor.companyId, true, trx);
        if (report.status !== 'draft')
          throw new AppError('INVALID_STATE', 'Only a draft can be edited; this report is published');
        if (attachments) await deps.attachments.attach(trx, owner, attachments);
        await repo.updateReport(trx, report.id, {
          ...(input.fraudType !== undefined ? { fraud_type: input.fraudType } : {}),
          ...(fraudReason !== undefined ? { fraud_reason: fraudReason } : {}),
          ...(input.showUploaderInfo !== undefined ? { show_uploader_info: input.showUploaderInfo } : {}),
          ...(input.userId !== undefined ? { user_id: input.userId } : {}),
          ...(attachments !== undefined ? { attachments } : {}),
        });
        if (sealed) {
          await repo.deleteIdentifiers(trx, report.id);
          await repo.insertIdentifiers(
            trx,
            sealed.map((s, position) => ({ ...s.row, report_id: report.id, position })),
          );
        }
        await recordAudit(trx, { ...actor, action: 'edit', reportId: report.id });
        return report.id;
      });
    },

    /** Publish, exit or relist: one row lock, the rule, the change and its audit row in one transaction. */
    async transition(actor: Actor, id: string, change: Transition) {
      return db.transaction().execute(async (trx) => {
        const report = await requireOwn(id, actor.operatorId ? undefined : actor.companyId, true, trx);
        const next = applyTransition(report, change);
        await repo.updateReport(trx, report.id, next);
        // An operator's decision also goes into the owning company's trail.
        await recordAudit(trx, { ...actor, companyId: report.company_id, action: change.kind, reportId: report.id });
        return report.id;
      });
    },
  };
}

export type Transition = { kind: 'publish' } | { kind: 'exit'; reason: string } | { kind: 'relist' };

function applyTransition(report: Selectable<ReportsTable>, change: Transition): repo.ReportChanges {
  switch (change.kind) {
    case 'publish':
      if (report.status !== 'draft') throw new AppError('INVALID_STATE', 'The report is already published');
      return { status: 'published', published_at: new Date() };
    case 'exit':
      if (report.status === 'draft') throw new AppError('INVALID_STATE', 'A draft is not on the list; publish it first');
      if (report.listing_status === 'exited') throw new AppError('INVALID_STATE', 'The report has already left the list');
      return { listing_status: 'exited', exited_list_at: new Date(), exit_list_reason: change.reason.trim() };
    case 'relist':
      if (report.status === 'draft') throw new AppError('INVALID_STATE', 'A draft is not on the list; publish it first');
      if (report.listing_status === 'listed') throw new AppError('INVALID_STATE', 'The report is already on the list');
      return { listing_status: 'listed', exited_list_at: null, exit_list_reason: null };
  }
}

export type ReportsService = ReturnType<typeof createReportsService>;
/** The interface document's Created report (plus `status`, which tells a draft apart). */
export interface CreatedReportView {
  id: string;
  status: ReportStatus;
  exitedListAt: string | null;
  exitListReason: string | null;
  fraudType: string;
  fraudReason: string;
  companyId: string;
  updatedAt: string;
  createdAt: string;
  identifiers: Array<{ label: string; value: string }>;
  /** Upload ids as stored; `create` turns them into signed links. */
  attachments: string[];
  reportedBy: string;
}
