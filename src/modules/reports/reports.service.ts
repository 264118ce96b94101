import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { RequestDigest } from '../../crypto/request-digest.js';
import type { Database } from '../../db/schema.js';
import { AppError, type FieldError } from '../../http/errors.js';
import type { IdentifierInput, SealedIdentifiers } from '../../identifiers/sealed-identifiers.js';
import type { Clock } from '../../jobs/clock.js';
import { auditRow, recordAudit } from '../audit/audit.repository.js';
import { isUuid } from '../ids.js';
import type { SafelistCheck } from '../safelist/safelist.service.js';
import { trimmedText } from '../trimmed-text.js';
import type { ReportAttachments } from '../uploads/attachments.js';
import { raiseListingChange, raiseReportVisible } from '../webhooks/outbox.js';
import { checkFraudReason } from './fraud-reason.js';
import {
  abandonIdempotent,
  completeIdempotent,
  type IdempotencyClaim,
  type ResponseSealer,
  startIdempotent,
} from './idempotency.js';
import { leftByExpiry } from './listing.service.js';
import { maskFraudReason } from './reason-masking.js';
import { precheckReport } from './report-precheck.js';
import { type FraudType, REPORT_LIMITS, type ReportStatus } from './report-values.js';
import * as repo from './reports.repository.js';
import { type ReasonSealer, reasonContext } from './sealed-reason.js';
import { sealedExitReason } from './sealed-texts.js';

export interface Actor {
  /** The key that acted, or null in a user's session (then `userId`). */
  keyId: string | null;
  userId?: string | null | undefined;
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

/** A report id as stored (lower case); anything that is not a UUID is simply not found. */
function reportIdFrom(id: string): string {
  if (!isUuid(id)) throw AppError.notFound('Report not found');
  return id.toLowerCase();
}

export function createReportsService(deps: {
  db: Kysely<Database>;
  identifiers: SealedIdentifiers;
  /** Seals stored idempotent responses (the keyring). */
  responses: ResponseSealer;
  /** Seals each reason to its company and report (sealed-reason.ts). */
  reasons: Pick<ReasonSealer, 'seal'>;
  /** Keyed digest of a request body, stored to tell a retry from another request under the same key. */
  requestDigest: RequestDigest;
  /** Upload URLs in, upload ids stored, signed download links out. */
  attachments: ReportAttachments;
  /** This process (instance-lease.ts): idempotency markers name it, so a retry knows when it died. */
  instanceId: string;
  /** Refuses a safelisted identifier on create, draft edit and publish (422 IDENTIFIER_SAFELISTED). */
  safelist: SafelistCheck;
  /** The time publication and leaving the list are stamped with: the one the expiry job and renewals read. */
  clock: Clock;
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
    idempotency?: IdempotencyClaim,
  ): Promise<CreatedReportView> {
    const errors: FieldError[] = [];
    const fraudReason = checkFraudReason(input.fraudReason, errors) as string;
    const reportId = randomUUID();
    const sealed = identifiers.seal(input.identifiers, { companyId: actor.companyId, recordId: reportId }, errors);
    const owner = { companyId: actor.companyId, recordId: reportId };
    const attachments = await deps.attachments.resolve(input.attachments ?? [], owner, errors);
    if (errors.length > 0) throw AppError.validation(errors);
    await deps.safelist.checkNew(sealed.map((s) => s.row));

    const insert = async (conn: Kysely<Database>): Promise<CreatedReportView> => {
      const row = await repo.insertReportWithIdentifiers(
        conn,
        {
          id: reportId,
          company_id: actor.companyId,
          // In a session the report names the signed-in user, whatever the body says.
          user_id: actor.userId ?? input.userId ?? null,
          fraud_type: input.fraudType,
          fraud_reason_token: deps.reasons.seal(fraudReason, reasonContext(actor.companyId, reportId)),
          fraud_reason_masked: maskFraudReason(fraudReason),
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
        fraudReason,
        companyId: row.company_id,
        updatedAt: row.updated_at.toISOString(),
        createdAt: row.created_at.toISOString(),
        identifiers: sealed.map((s) => ({ label: s.label, value: s.value })),
        attachments: row.attachments,
        reportedBy: actor.businessName,
      };
    };
    // A draft without extras is one statement; attachments, a stored idempotent response and the
    // webhook events of a published report (issue 14's outbox) land with it in one transaction, or not at all.
    const visible = (input.status ?? 'published') === 'published';
    if (!idempotency && attachments.length === 0 && !visible) return insert(db);
    return db.transaction().execute(async (trx) => {
      const created = await insert(trx);
      if (visible) await raiseReportVisible(trx, reportId);
      if (attachments.length > 0) await deps.attachments.attach(trx, owner, attachments);
      if (idempotency) await completeIdempotent(trx, idempotency, 201, created, deps.responses);
      return created;
    });
  }

  return {
    /** The value checks of a create on a body that failed its schema (report-precheck.ts). */
    precheck(body: unknown): FieldError[] {
      const errors: FieldError[] = [];
      if (typeof body === 'object' && body !== null) {
        precheckReport(body as Record<string, unknown>, identifiers, errors);
      }
      return errors;
    },

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
      const scope = {
        companyId: actor.companyId,
        key: idempotencyKey,
        requestHash: deps.requestDigest(input),
        instanceId: deps.instanceId,
      };
      const start = await startIdempotent(db, scope, deps.responses);
      if (start.kind === 'replay') return { replayed: true, report: withLinks(start.body as CreatedReportView) };
      const claim = { companyId: scope.companyId, key: scope.key, rowId: start.rowId, claimId: start.claimId };
      try {
        return { replayed: false, report: withLinks(await createReport(actor, input, claim)) };
      } catch (error) {
        // With the database gone the marker stays; its owner's lease tells the retry it may take over.
        await abandonIdempotent(db, claim).catch(() => {});
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
      if (sealed) await deps.safelist.checkNew(sealed.map((s) => s.row));
      return db.transaction().execute(async (trx) => {
        const report = await requireOwn(reportId, actor.companyId, true, trx);
        if (report.status !== 'draft')
          throw new AppError('INVALID_STATE', 'Only a draft can be edited; this report is published');
        if (attachments) await deps.attachments.attach(trx, owner, attachments);
        await repo.updateReport(trx, report.id, {
          ...(input.fraudType !== undefined ? { fraud_type: input.fraudType } : {}),
          ...(fraudReason !== undefined
            ? {
                fraud_reason: null,
                fraud_reason_token: deps.reasons.seal(fraudReason, reasonContext(report.company_id, report.id)),
                fraud_reason_masked: maskFraudReason(fraudReason),
              }
            : {}),
          ...(input.showUploaderInfo !== undefined ? { show_uploader_info: input.showUploaderInfo } : {}),
          // In a session the draft keeps naming the signed-in user, as on create.
          ...(input.userId !== undefined && !actor.userId ? { user_id: input.userId } : {}),
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
        const next = applyTransition(report, change, deps.clock.now(), deps.reasons);
        if (change.kind === 'publish') await deps.safelist.checkStored(trx, report.id);
        // A dispute's outcome, or an operator's takedown, is not the member's to undo: the operators decide.
        if (change.kind === 'relist' && !actor.operatorId) {
          const by = report.exited_by_dispute_id ? 'through a dispute' : report.exited_by_operator_id ? 'by the operators' : '';
          if (by) {
            throw new AppError(
              'INVALID_STATE',
              `This report was taken off the list ${by}, so only the operators can put it back; ask them with the evidence`,
            );
          }
          if (leftByExpiry(report)) {
            throw new AppError(
              'INVALID_STATE',
              'This listing period ended; renew the report with a statement (POST .../renew) to put it back for a new period',
            );
          }
        }
        if (change.kind === 'exit') next.exited_by_operator_id = actor.operatorId ?? null;
        await repo.updateReport(trx, report.id, next);
        // An operator's decision also goes into the owning company's trail.
        await recordAudit(trx, { ...actor, companyId: report.company_id, action: change.kind, reportId: report.id });
        // Webhook events land with the change (issue 14's outbox); a relist tells earlier matches first.
        if (change.kind === 'exit') await raiseListingChange(trx, report.id, 'submission.exited');
        if (change.kind === 'relist') await raiseListingChange(trx, report.id, 'submission.relisted');
        if (change.kind !== 'exit') await raiseReportVisible(trx, report.id);
        return report.id;
      });
    },
  };
}

export type Transition = { kind: 'publish' } | { kind: 'exit'; reason: string } | { kind: 'relist' };

function applyTransition(
  report: repo.ReportRow,
  change: Transition,
  now: Date,
  texts: Pick<ReasonSealer, 'seal'>,
): repo.ReportChanges {
  switch (change.kind) {
    case 'publish':
      if (report.status !== 'draft') throw new AppError('INVALID_STATE', 'The report is already published');
      return { status: 'published', published_at: now };
    case 'exit':
      if (report.status === 'draft') throw new AppError('INVALID_STATE', 'A draft is not on the list; publish it first');
      if (report.listing_status === 'exited') throw new AppError('INVALID_STATE', 'The report has already left the list');
      return {
        listing_status: 'exited',
        exited_list_at: now,
        ...sealedExitReason(
          texts,
          report.company_id,
          report.id,
          trimmedText('reason', change.reason, REPORT_LIMITS.exitReasonMin),
        ),
        exited_by_dispute_id: null,
      };
    case 'relist':
      if (report.status === 'draft') throw new AppError('INVALID_STATE', 'A draft is not on the list; publish it first');
      if (report.listing_status === 'listed') throw new AppError('INVALID_STATE', 'The report is already on the list');
      return {
        listing_status: 'listed',
        exited_list_at: null,
        exit_list_reason: null,
        exit_list_reason_token: null,
        exited_by_dispute_id: null,
        exited_by_operator_id: null,
      };
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
