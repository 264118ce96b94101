import { type Kysely, sql } from 'kysely';
import type { Database } from '../../db/schema.js';
import { AppError } from '../../http/errors.js';
import { type Clock, DAY_MS, daysBefore } from '../../jobs/clock.js';
import { jobRequestId, SYSTEM_KEY_ID } from '../../jobs/system-actor.js';
import { recordAudit } from '../audit/audit.repository.js';
import { isUuid } from '../ids.js';
import { trimmedText } from '../trimmed-text.js';
import { exitedWatchersCtes, raiseListingChange, raiseReportVisible } from '../webhooks/outbox.js';
import * as repo from './reports.repository.js';
import type { Actor } from './reports.service.js';
import type { ReasonSealer } from './sealed-reason.js';
import { EXPIRED_REASON, reportTextContext } from './sealed-texts.js';

export { EXPIRED_REASON };

/** A listing can be renewed in its last this many days. */
export const RENEWAL_WINDOW_DAYS = 90;
const EXPIRY_BATCH = 500;

/** A report off the list because its listing period ended (not by its owner, a dispute or the operators). */
export function leftByExpiry(
  report: Pick<repo.ReportRow, 'listing_status' | 'exit_list_reason' | 'exited_by_dispute_id' | 'exited_by_operator_id'>,
): boolean {
  return (
    report.listing_status === 'exited' &&
    report.exit_list_reason === EXPIRED_REASON &&
    !report.exited_by_dispute_id &&
    !report.exited_by_operator_id
  );
}

/**
 * When a listed report's period ends, and from when it may be renewed (its last 90 days); undefined
 * for a draft or a report off the list.
 */
export function listingPeriod(
  report: Pick<repo.ReportRow, 'status' | 'listing_status' | 'published_at' | 'renewed_at'>,
  listingDays: number,
): { endsAt: Date; renewableFrom: Date } | undefined {
  if (report.status !== 'published' || report.listing_status !== 'listed' || !report.published_at) return undefined;
  const start = report.renewed_at ?? report.published_at;
  const endsAt = new Date(start.getTime() + listingDays * DAY_MS);
  return { endsAt, renewableFrom: daysBefore(endsAt, RENEWAL_WINDOW_DAYS) };
}

/**
 * The listing period: a report leaves the list `listingDays` after publication or its latest
 * renewal, unless its owner renews it (with a statement) in the period's last 90 days.
 */
export function createListingService(deps: {
  db: Kysely<Database>;
  clock: Clock;
  listingDays: number;
  texts: Pick<ReasonSealer, 'seal'>;
}) {
  const { db, clock, listingDays } = deps;

  return {
    async renew(actor: Actor & { companyId: string }, id: string, statement: string): Promise<string> {
      // Shown to whoever disputes the listing: it must say something a reader can see.
      const text = trimmedText('statement', statement, 50);
      return db.transaction().execute(async (trx) => {
        const report = isUuid(id) ? await repo.findReport(trx, id.toLowerCase(), actor.companyId, true) : undefined;
        if (!report) throw AppError.notFound('Report not found');
        const now = clock.now();
        // A listing whose period ended comes back by renewal, with a statement and a new period, as
        // one renewed in time would have: a relist alone would leave it due to expire at once.
        const expired = report.status === 'published' && leftByExpiry(report);
        const period = listingPeriod(report, listingDays);
        if (!expired && !period)
          throw new AppError('INVALID_STATE', 'Only a listed report, or one whose listing period ended, can be renewed');
        if (period && now < period.renewableFrom)
          throw new AppError(
            'INVALID_STATE',
            `The listing runs until ${period.endsAt.toISOString()}; it can be renewed from ${period.renewableFrom.toISOString()}`,
          );
        await repo.updateReport(trx, report.id, {
          renewed_at: now,
          renewal_statement_token: deps.texts.seal(text, reportTextContext(report.company_id, report.id, 'renewalStatement')),
          renewal_statement: null,
          ...(expired
            ? { listing_status: 'listed' as const, exited_list_at: null, exit_list_reason: null, exit_list_reason_token: null }
            : {}),
        });
        await recordAudit(trx, { ...actor, action: 'renew', reportId: report.id });
        // Back on the list: its watchers hear it as they hear a relist.
        if (expired) {
          await raiseListingChange(trx, report.id, 'submission.relisted');
          await raiseReportVisible(trx, report.id);
        }
        return report.id;
      });
    },

    /** The expiry job: listed reports whose period ended leave the list with reason "Expired", audited. */
    async expire(now: Date): Promise<number> {
      const cutoff = daysBefore(now, listingDays);
      const requestId = jobRequestId('listings.expire', now);
      let expired = 0;
      for (;;) {
        // One statement a batch: the change, its audit rows (the owner's `expire` and `submission.exited`) and the
        // watchers' `submission.exited` webhook events (issue 14) land together.
        const result = await sql<{ n: number }>`
          with due as (
            select id from reports
            where status = 'published' and listing_status = 'listed' and coalesce(renewed_at, published_at) < ${cutoff}
            limit ${EXPIRY_BATCH} for update skip locked
          ), gone as (
            update reports r set listing_status = 'exited', exited_list_at = ${now}, exit_list_reason = ${EXPIRED_REASON},
              exit_list_reason_token = null, exited_by_dispute_id = null, updated_at = now()
            from due where r.id = due.id
            returning r.id, r.company_id
          ), audit as (
            insert into audit_events (company_id, key_id, action, report_id, request_id)
            select company_id, ${SYSTEM_KEY_ID}::uuid, a.action, id, ${requestId} from gone
            cross join (values ('expire'), ('submission.exited')) as a(action)
          ) ${exitedWatchersCtes('gone')}
          select count(*)::int as n from gone`.execute(db);
        const n = result.rows[0]?.n ?? 0;
        expired += n;
        if (n < EXPIRY_BATCH) return expired;
      }
    },
  };
}

export type ListingService = ReturnType<typeof createListingService>;
