import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';
import { raiseListingChange } from '../webhooks/outbox.js';

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
}

/**
 * The one place a submission event is raised, inside the transaction of the change. Until webhooks
 * exist (issue 14) the notification is an entry on the owner's audit trail named after the event;
 * the webhook outbox row goes here, beside it, in the same transaction.
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
  // Watchers whose watchlist matched the report hear of its exit (issue 14's outbox).
  for (const e of events) if (e.type === 'submission.exited') await raiseListingChange(db, e.reportId, 'submission.exited');
}
