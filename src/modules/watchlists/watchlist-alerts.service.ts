import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { AppError } from '../../http/errors.js';
import type { Mailer } from '../users/mailer.js';
import {
  alertsOf,
  dueAlerts,
  markFailed,
  markTold,
  setAlertsDaily,
  turnAlertsOff,
  turnAlertsOn,
} from './watchlist-alerts.repository.js';

/**
 * Events younger than this wait for the next run: an event's time is its transaction's start, so one
 * committed after a run read could be older than the newest it told. The open transactions are
 * waited for too (dueAlerts); this margin also covers one that began writing as the run read.
 */
export const WATCHLIST_ALERT_SETTLE_SECONDS = 60;

/** People told in one run; the rest are told at the next (the job runs again when due). */
const ALERTS_PER_RUN = 500;

/** Who asks: a signed-in person, as the session knows them. */
export interface AlertsPerson {
  userId: string;
  companyId: string | null;
  role: string;
}

export interface WatchlistAlertsState {
  /** Whether the person asked to be e-mailed. */
  on: boolean;
  /** Whether they may: an analyst or administrator of a member, on a service that sends e-mail. */
  available: boolean;
  /** How often: at most every quarter of an hour, or once a day at 08:00 in Lagos. */
  every: AlertsEvery;
}

export const ALERTS_EVERY = ['quarter_hour', 'day'] as const;
export type AlertsEvery = (typeof ALERTS_EVERY)[number];

export interface WatchlistAlertsDeps {
  db: Kysely<Database>;
  mailer?: Mailer | undefined;
  /** The desk's Watchlist page, named in the mail. */
  deskUrl: string;
  /** WATCHLIST_ALERT_SETTLE_SECONDS (a test of the open-transaction rule passes 0). */
  settleSeconds: number;
  log: { warn(obj: object, msg: string): void };
  /** The time a run reads the day's hour by; the database's now when absent (a test places runs around the hour). */
  now?: () => Date;
}

/** What the log says of a failed mail: the SMTP server's answer, never the address. */
function smtpFailure(error: unknown): string {
  const { code, responseCode, command } = (error ?? {}) as { code?: unknown; responseCode?: unknown; command?: unknown };
  return [code, responseCode, command].filter((part) => part !== undefined).join(' ') || 'unknown';
}

const mayWatch = (person: AlertsPerson) => person.companyId !== null && (person.role === 'analyst' || person.role === 'admin');

/**
 * E-mail alerts about a member's watched customers (decision 0140): a person asks for them on their
 * account page, and the `watchlist.alerts` job mails each, at most once a run, how many reports named
 * or stopped naming the customers their member watches since the last mail. Counts only: the mail
 * names no one, and the desk's Watchlist page says which, after sign-in.
 */
export function createWatchlistAlerts(deps: WatchlistAlertsDeps) {
  const stateOf = async (person: AlertsPerson): Promise<WatchlistAlertsState> => {
    const { after, daily } = await alertsOf(deps.db, person.userId);
    return {
      on: after !== null,
      available: deps.mailer !== undefined && mayWatch(person),
      every: daily ? 'day' : 'quarter_hour',
    };
  };

  return {
    state: stateOf,

    /**
     * Turns the person's alerts on (from now: what happened before is on the Watchlist page) or off,
     * and sets how often when `every` is given (kept otherwise, and while they are off). A change of
     * how often loses nothing: what is untold goes in the next mail, quarter-hourly or daily.
     */
    async set(person: AlertsPerson, on: boolean, every?: AlertsEvery): Promise<WatchlistAlertsState> {
      if (on && !mayWatch(person))
        throw new AppError(
          'FORBIDDEN',
          "Only a member's analysts and administrators watch customers, so only they can have these alerts",
        );
      if (on && !deps.mailer)
        throw new AppError(
          'INVALID_STATE',
          'This Redflag service sends no e-mail, so it cannot send alerts: the operators can turn e-mail on',
        );
      await deps.db.transaction().execute(async (trx) => {
        // Turning them on twice keeps the first time: nothing already due is skipped.
        const { after } = await alertsOf(trx, person.userId);
        if (on && after === null) await turnAlertsOn(trx, person.userId);
        if (!on && after !== null) await turnAlertsOff(trx, person.userId);
        if (every !== undefined) await setAlertsDaily(trx, person.userId, every === 'day');
      });
      return stateOf(person);
    },

    /**
     * Mails everyone due, each once. A mail that fails leaves its person's time as it was and puts
     * them an hour back, behind the others (they are then told what came meanwhile too); a process
     * killed between a mail and its record sends that one mail again. Returns how many were mailed;
     * after a run with failures, says the SMTP server's answers (never the addresses) and throws,
     * so the job's record says so too.
     */
    async sendDue(): Promise<number> {
      if (!deps.mailer) return 0;
      const due = await dueAlerts(deps.db, deps.settleSeconds, ALERTS_PER_RUN, deps.now?.());
      let mailed = 0;
      const failures = new Map<string, number>();
      for (const alert of due) {
        try {
          await deps.mailer.sendWatchlistAlert({
            to: alert.email,
            member: alert.business_name,
            matches: alert.matches,
            changes: alert.changes,
            deskUrl: deps.deskUrl,
          });
        } catch (error) {
          const answer = smtpFailure(error);
          failures.set(answer, (failures.get(answer) ?? 0) + 1);
          await markFailed(deps.db, alert.user_id);
          continue;
        }
        await markTold(deps.db, alert.user_id, alert.after, alert.until);
        mailed++;
      }
      const failed = due.length - mailed;
      if (failed === 0) return mailed;
      deps.log.warn({ mailed, failed, answers: Object.fromEntries(failures) }, 'watchlist alert mails failed');
      throw new Error(
        `${failed} of ${due.length} watchlist alert mails failed (${mailed} sent); those people are tried again in an hour`,
      );
    },
  };
}

export type WatchlistAlerts = ReturnType<typeof createWatchlistAlerts>;
