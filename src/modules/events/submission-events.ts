import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';
import { raiseListingChange, raiseSubmissionDisputed } from '../webhooks/outbox.js';

type Db = Kysely<Database> | Transaction<Database>;

/** What a report's owner is told about (the webhook event names of issue 14). */
export type SubmissionEventType = 'submission.disputed' | 'submission.exited';

export interface SubmissionEvent {
  type: SubmissionEventType;
  /** The report's owner: the company told. */
  companyId: string;
  reportId: string;
  /** The API key that acted, or null for a signed-in user (userId). */
  keyId: string | null;
  userId?: string | null | undefined;
  requestId: string;
  operatorId?: string | undefined;
  /** For `submission.disputed`: the dispute, which its webhook event names. */
  disputeId?: string | undefined;
}

/**
 * The one place a submission event is raised, inside the transaction of the change: an entry on the
 * owner's audit trail named after the event, and beside it the webhook outbox rows (issue 14).
 */
export async function raiseSubmissionEvents(db: Db, events: readonly SubmissionEvent[]): Promise<void> {
  if (events.length === 0) return;
  await db
    .insertInto('audit_events')
    .values(
      events.map((e) => ({
        company_id: e.companyId,
        operator_id: e.operatorId ?? null,
        key_id: e.keyId,
        user_id: e.userId ?? null,
        request_id: e.requestId,
        action: e.type,
        report_id: e.reportId,
      })),
    )
    .execute();
  for (const e of events) {
    // Watchers whose watchlist matched the report hear of its exit; the owner of a disputed one, of the dispute.
    if (e.type === 'submission.exited') await raiseListingChange(db, e.reportId, 'submission.exited');
    if (e.type === 'submission.disputed' && e.disputeId) await raiseSubmissionDisputed(db, e.disputeId);
  }
}
