import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';
import { AppError, type FieldError } from '../../http/errors.js';
import { type Clock, daysAfter } from '../../jobs/clock.js';
import { jobRequestId, SYSTEM_KEY_ID } from '../../jobs/system-actor.js';
import { type AuditEntry, recordAudit, recordAudits } from '../audit/audit.repository.js';
import { raiseSubmissionEvents } from '../events/submission-events.js';
import { isUuid } from '../ids.js';
import { maskFraudReason } from '../reports/reason-masking.js';
import { REPORT_LIMITS } from '../reports/report-values.js';
import * as reports from '../reports/reports.repository.js';
import type { Actor } from '../reports/reports.service.js';
import type { ReasonSealer } from '../reports/sealed-reason.js';
import { sealedExitReason, serviceExitReason, TIMEOUT_REASON } from '../reports/sealed-texts.js';
import { freeTextError, trimmedText } from '../trimmed-text.js';
import type { ReportAttachments } from '../uploads/attachments.js';
import { DISPUTE_LIMITS, type DisputeStep, nextStatus } from './dispute-states.js';
import { type DisputeTextColumn, openDisputeText, sealDisputeText } from './dispute-texts.js';
import * as repo from './disputes.repository.js';

const TIMEOUT_BATCH = 200;

export interface OpenDisputeInput {
  reportId: string;
  reason: string;
  identifierIds?: string[] | undefined;
  attachments?: string[] | undefined;
}

/** A dispute's audit row on each company's trail (the owner's, and the disputing company's). */
function bothTrails(
  actor: Actor,
  dispute: Pick<repo.DisputeRow, 'report_id' | 'report_company_id' | 'disputing_company_id'>,
  action: string,
) {
  const companies = new Set([dispute.report_company_id, dispute.disputing_company_id].filter((c): c is string => c !== null));
  return [...companies].map(
    (companyId): AuditEntry => ({ ...actor, companyId, operatorId: actor.operatorId, action, reportId: dispute.report_id }),
  );
}

export function createDisputesService(deps: {
  db: Kysely<Database>;
  clock: Clock;
  responseDays: number;
  attachments: ReportAttachments;
  /** Seals a dispute's words and the exit reasons it writes, and opens them to read (dispute-texts.ts). */
  texts: ReasonSealer;
}) {
  const { db, clock, texts } = deps;

  /**
   * A dispute as `viewer` sees it. A member reads the other side's words, and the operators', with
   * identifiers masked as in search (`*********77`, `j***@example.com`): a statement is no channel for
   * a customer's BVN from one member to another. Its own words, and everything for the operators, are
   * whole. With no viewer (the operators' list), whole.
   */
  function view(row: repo.DisputeRow, viewer?: Actor) {
    const member = viewer?.companyId;
    const theirs = (column: DisputeTextColumn, author: string | null) => {
      const text = openDisputeText(texts, row, column);
      return text === null || member === undefined || author === member ? text : maskFraudReason(text);
    };
    return {
      id: row.id,
      reportId: row.report_id,
      report: { fraudType: row.report_fraud_type, publishedAt: row.report_published_at?.toISOString() ?? null },
      status: row.status,
      reason: theirs('reason', row.disputing_company_id) ?? '',
      identifierIds: row.identifier_ids,
      attachments: deps.attachments.links(row.attachments),
      openedAt: row.opened_at.toISOString(),
      respondBy: row.respond_by.toISOString(),
      ownerStatement: theirs('owner_statement', row.report_company_id),
      answeredAt: row.answered_at?.toISOString() ?? null,
      escalatedAt: row.escalated_at?.toISOString() ?? null,
      decidedAt: row.decided_at?.toISOString() ?? null,
      decisionReason: theirs('decision_reason', null),
      reportingCompany: { id: row.report_company_id, businessName: row.report_company_name },
      disputingCompany:
        row.disputing_company_id === null
          ? null
          : { id: row.disputing_company_id, businessName: row.disputing_company_name ?? '' },
      raisedByOperator: row.disputing_operator_id !== null,
    };
  }

  /** A dispute the actor may see: a side of it, or an operator. Anyone else gets the 404 of a random id. */
  async function requireVisible(actor: Actor, id: string, trx: Kysely<Database> = db, forUpdate = false) {
    const row = isUuid(id) ? await repo.findDispute(trx, id.toLowerCase(), forUpdate) : undefined;
    const visible =
      row &&
      (actor.operatorId !== undefined || [row.report_company_id, row.disputing_company_id].includes(actor.companyId ?? null));
    if (!row || !visible) throw AppError.notFound('Dispute not found');
    return row;
  }

  /**
   * Takes the report off the list (if it still is), as the existing exit does, in the caller's
   * transaction. `holdOff`: the operators decided it must be off; one its owner had already taken
   * off is kept off too (only the operators may put it back), or the owner could undo the decision.
   * A time-out or an exit answer on a report already off leaves it the owner's (as migration 0022
   * says): the owner took it off themselves, and a relist may be disputed again. `exitReason`: the
   * columns sealedExitReason or serviceExitReason give.
   */
  async function exitReport(
    trx: Transaction<Database>,
    actor: Actor,
    dispute: repo.DisputeRow,
    exitReason: Pick<reports.ReportChanges, 'exit_list_reason' | 'exit_list_reason_token'>,
    holdOff = false,
  ) {
    const report = await reports.findReport(trx, dispute.report_id, undefined, true);
    if (report?.listing_status !== 'listed') {
      if (report && holdOff && !report.exited_by_dispute_id) {
        await reports.updateReport(trx, report.id, { exited_by_dispute_id: dispute.id });
      }
      return false;
    }
    await reports.updateReport(trx, report.id, {
      listing_status: 'exited',
      exited_list_at: clock.now(),
      ...exitReason,
      // While it is off, only the operators may put it back (reports.service.ts, relist).
      exited_by_dispute_id: dispute.id,
    });
    await recordAudit(trx, { ...actor, companyId: report.company_id, action: 'exit', reportId: report.id });
    await raiseSubmissionEvents(trx, [
      {
        type: 'submission.exited',
        companyId: report.company_id,
        reportId: report.id,
        keyId: actor.keyId,
        userId: actor.userId,
        requestId: actor.requestId,
        operatorId: actor.operatorId,
      },
    ]);
    return true;
  }

  /** One step of a dispute: who may take it, the state rule, the change, both trails, in one transaction. */
  async function step(
    actor: Actor,
    id: string,
    kind: DisputeStep,
    may: (row: repo.DisputeRow) => boolean,
    apply: (trx: Transaction<Database>, row: repo.DisputeRow, now: Date) => Promise<void>,
  ) {
    const updated = await db.transaction().execute(async (trx) => {
      const row = await requireVisible(actor, id, trx, true);
      if (!may(row)) throw new AppError('FORBIDDEN', `Only ${WHO[kind]} can do this`);
      const status = nextStatus(row.status, kind);
      // Off the list another way (the owner's exit, another dispute, expiry), the report has nothing
      // left to answer, escalate or keep; the owner may still close the dispute with an exit. Should
      // the report come back, the dispute goes on.
      // Read under the report's row lock: an owner's exit at the same moment cannot slip between.
      const offTheList = async () => (await reports.findReport(trx, row.report_id, undefined, true))?.listing_status !== 'listed';
      if ((kind === 'uphold' || kind === 'escalate' || kind === 'keep') && (await offTheList())) {
        throw new AppError(
          'INVALID_STATE',
          'The report is no longer on the list, so there is nothing left to decide; if it comes back, this dispute goes on',
        );
      }
      const now = clock.now();
      await apply(trx, { ...row, status }, now);
      await repo.updateDispute(trx, row.id, { status });
      await recordAudits(trx, bothTrails(actor, row, `dispute_${kind}`));
      return row.id;
    });
    return view((await repo.findDispute(db, updated)) as repo.DisputeRow, actor);
  }

  /**
   * A report off the list, disputed by someone other than its owner: another member sees no such
   * report anywhere (search does not return it), so it is the 404 of a random id, not a 409 that
   * confirms the id and tells its state. Operators see every report and hear why.
   */
  const offList = (actor: Actor) =>
    actor.companyId === undefined
      ? new AppError('INVALID_STATE', 'The report is no longer on the list')
      : AppError.notFound('Report not found');

  const isOwner = (actor: Actor) => (row: repo.DisputeRow) => actor.companyId === row.report_company_id;

  return {
    view,

    async open(actor: Actor, input: OpenDisputeInput) {
      const errors: FieldError[] = [];
      const report = isUuid(input.reportId) ? await reports.findReport(db, input.reportId.toLowerCase(), undefined) : undefined;
      if (report?.status !== 'published') throw AppError.notFound('Report not found');
      if (report.company_id === actor.companyId) throw new AppError('INVALID_STATE', 'A company cannot dispute its own report');
      if (report.listing_status !== 'listed') throw offList(actor);
      const known = new Set((await reports.findIdentifiers(db, [report.id])).map((i) => i.id));
      const identifierIds = (input.identifierIds ?? []).map((value, i) => {
        const idValue = value.toLowerCase();
        if (!known.has(idValue)) errors.push({ field: `identifierIds/${i}`, message: "is not one of the report's identifiers" });
        return idValue;
      });
      const disputeId = randomUUID();
      let uploadIds: string[] = [];
      if (input.attachments?.length) {
        if (actor.companyId === undefined) errors.push({ field: 'attachments', message: 'an operator cannot attach files' });
        else
          uploadIds = await deps.attachments.resolve(
            input.attachments,
            { companyId: actor.companyId, recordId: disputeId },
            errors,
          );
      }
      const reason = input.reason.trim();
      const reasonError = freeTextError('reason', reason, DISPUTE_LIMITS.reasonMin);
      if (reasonError) errors.push(reasonError);
      if (errors.length > 0) throw AppError.validation(errors);

      const now = clock.now();
      await db.transaction().execute(async (trx) => {
        const locked = await reports.findReport(trx, report.id, undefined, true);
        if (locked?.listing_status !== 'listed') throw offList(actor);
        const disputingCompanyId = actor.companyId ?? null;
        if (await repo.hasUnresolved(trx, report.id, disputingCompanyId))
          throw new AppError('INVALID_STATE', 'This report already has an open dispute of yours');
        const row = {
          id: disputeId,
          report_id: report.id,
          report_company_id: report.company_id,
          disputing_company_id: disputingCompanyId,
          disputing_operator_id: actor.companyId === undefined ? (actor.operatorId ?? null) : null,
          reason: null,
          reason_token: sealDisputeText(texts, { id: disputeId, report_company_id: report.company_id }, 'reason', reason),
          identifier_ids: identifierIds,
          attachments: uploadIds,
          status: 'open' as const,
          opened_at: now,
          respond_by: daysAfter(now, deps.responseDays),
        };
        await repo.insertDispute(trx, row);
        if (uploadIds.length > 0 && actor.companyId)
          await deps.attachments.attach(trx, { companyId: actor.companyId, recordId: disputeId }, uploadIds);
        await recordAudits(trx, bothTrails(actor, row, 'dispute_open'));
        await raiseSubmissionEvents(trx, [
          {
            type: 'submission.disputed',
            companyId: report.company_id,
            reportId: report.id,
            disputeId,
            keyId: actor.keyId,
            userId: actor.userId,
            requestId: actor.requestId,
            operatorId: actor.operatorId,
          },
        ]);
      });
      return view((await repo.findDispute(db, disputeId)) as repo.DisputeRow, actor);
    },

    async get(actor: Actor, id: string) {
      return view(await requireVisible(actor, id), actor);
    },

    /** A member's disputes (`filters.companyId`), or every one for the operators. */
    async list(filters: repo.DisputeFilters & { page: number; limit: number }) {
      const { rows, total } = await repo.listDisputes(db, filters, (filters.page - 1) * filters.limit, filters.limit);
      const viewer = filters.companyId === undefined ? undefined : ({ companyId: filters.companyId } as Actor);
      return { data: rows.map((row) => view(row, viewer)), meta: { total, page: filters.page, limit: filters.limit } };
    },

    uphold: (actor: Actor, id: string, statement: string) =>
      step(actor, id, 'uphold', isOwner(actor), async (trx, row, now) => {
        const text = trimmedText('statement', statement, DISPUTE_LIMITS.statementMin);
        await repo.updateDispute(trx, row.id, {
          owner_statement_token: sealDisputeText(texts, row, 'owner_statement', text),
          owner_statement: null,
          answered_at: now,
        });
      }),

    exit: (actor: Actor, id: string, reason: string) =>
      step(actor, id, 'exit', isOwner(actor), async (trx, row, now) => {
        const text = trimmedText('reason', reason, REPORT_LIMITS.exitReasonMin);
        await repo.updateDispute(trx, row.id, { answered_at: now });
        await exitReport(trx, actor, row, sealedExitReason(texts, row.report_company_id, row.report_id, text));
      }),

    escalate: (actor: Actor, id: string) =>
      step(
        actor,
        id,
        'escalate',
        (row) =>
          actor.companyId !== undefined
            ? [row.report_company_id, row.disputing_company_id].includes(actor.companyId)
            : row.disputing_operator_id !== null,
        async (trx, row, now) => repo.updateDispute(trx, row.id, { escalated_at: now }),
      ),

    decide: (actor: Actor, id: string, outcome: 'keep' | 'remove', reason: string) =>
      step(
        actor,
        id,
        outcome,
        () => actor.operatorId !== undefined,
        async (trx, row, now) => {
          const text = trimmedText('reason', reason, DISPUTE_LIMITS.decisionReasonMin);
          await repo.updateDispute(trx, row.id, {
            decided_at: now,
            decision_reason_token: sealDisputeText(texts, row, 'decision_reason', text),
            decision_reason: null,
          });
          // The decision becomes the report's exit reason, which its member reads: masked like the
          // decision itself is for them (decision 0125).
          if (outcome === 'remove') {
            const masked = maskFraudReason(text);
            await exitReport(trx, actor, row, sealedExitReason(texts, row.report_company_id, row.report_id, masked), true);
          }
        },
      ),

    /** The timeout job: open disputes past their deadline close, and their reports leave the list. */
    async timeOutOverdue(now: Date): Promise<number> {
      const actor: Actor = { keyId: SYSTEM_KEY_ID, requestId: jobRequestId('disputes.timeout', now) };
      let handled = 0;
      for (;;) {
        const count = await db.transaction().execute(async (trx) => {
          const overdue = await repo.lockOverdue(trx, now, TIMEOUT_BATCH);
          for (const dispute of overdue) {
            const row = (await repo.findDispute(trx, dispute.id)) as repo.DisputeRow;
            await repo.updateDispute(trx, row.id, { status: nextStatus(row.status, 'time_out') });
            await exitReport(trx, actor, row, serviceExitReason(TIMEOUT_REASON));
            await recordAudits(trx, bothTrails(actor, row, 'dispute_time_out'));
          }
          return overdue.length;
        });
        handled += count;
        if (count < TIMEOUT_BATCH) return handled;
      }
    },
  };
}

const WHO: Record<DisputeStep, string> = {
  uphold: "the report's owner",
  exit: "the report's owner",
  time_out: 'the scheduler',
  escalate: 'a side of the dispute',
  keep: 'an operator',
  remove: 'an operator',
};

export type DisputesService = ReturnType<typeof createDisputesService>;
