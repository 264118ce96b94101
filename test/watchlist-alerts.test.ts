import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMailer } from '../src/modules/users/mailer.js';
import { createWatchlistAlerts, WATCHLIST_ALERT_SETTLE_SECONDS } from '../src/modules/watchlists/watchlist-alerts.service.js';
import { accept, createUser, enrolTotp, invite, sessionCookie, sessionHeaders, signIn, testClock } from './helpers/people.js';
import { createCompany, createOperator, key } from './helpers/principals.js';
import { createReport } from './helpers/reports.js';
import { type ReceivedMail, startSmtpSink } from './helpers/smtp-sink.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';
import { ageWatchlistEvents, watchingMember as watching } from './helpers/watchlist.js';

const PORT = 4427;
const ALERTS = '/api/v1/auth/me/watchlist-alerts';
const clock = testClock();
let t: TestApp;
/** Refuses mail to addresses starting with "refused": a mail server's real refusal. */
let sink: Awaited<ReturnType<typeof startSmtpSink>>;
let received: ReceivedMail[];

beforeAll(async () => {
  sink = await startSmtpSink(PORT, { refuse: (address) => address.startsWith('refused') });
  received = sink.received;
  t = await buildTestApp({
    now: clock.now,
    config: { jobTickSeconds: 0, smtpUrl: sink.url, mailFrom: 'Redflag <desk@redflag.example>' },
  });
});
afterAll(async () => {
  await t.close();
  await sink.close();
});

const runAlerts = () => t.app.jobs.runNow('watchlist.alerts');
const age = (companyId: string) => ageWatchlistEvents(t, companyId);
/** The alerts mailed to a person (their invitation came through the same sink). */
const mailsTo = (email: string) => received.filter((m) => m.to.includes(email) && m.body.includes('Subject: Redflag: '));
const alertsOf = async (headers: Record<string, string>) => {
  const res = await t.app.inject({ url: ALERTS, headers });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data.watchlistAlerts;
};
const setAlerts = (headers: Record<string, string>, on: boolean, every?: string) =>
  t.app.inject({ method: 'PUT', url: ALERTS, headers, payload: every === undefined ? { on } : { on, every } });

const watchingMember = () => watching(t);

describe('e-mail alerts about watched customers', () => {
  it('mails an analyst who asked, once, with counts and no names, only events after asking, a minute settled', async () => {
    const { bank, phone } = await watchingMember();
    const reporter = await createCompany(t, { businessName: 'Reporting Lender Ltd' });
    const analyst = await createUser(t, clock, { companyId: bank.companyId }, 'analyst');
    const colleague = await createUser(t, clock, { companyId: bank.companyId }, 'analyst');

    // A report before asking is on the Watchlist page, not in a mail.
    await createReport(t, reporter.apiKey, { identifiers: [{ label: 'phone', value: phone }] });
    await age(bank.companyId);
    expect(await alertsOf(analyst.headers)).toEqual({ on: false, available: true, every: 'quarter_hour' });
    const on = await setAlerts(analyst.headers, true);
    expect(on.statusCode, on.body).toBe(200);
    expect(on.json().data.watchlistAlerts).toEqual({ on: true, available: true, every: 'quarter_hour' });
    expect((await runAlerts()).items).toBe(0);

    const report = await createReport(t, reporter.apiKey, { identifiers: [{ label: 'phone', value: phone }] });
    // Not yet a minute old: a transaction that began before it may still commit an older event.
    expect((await runAlerts()).items).toBe(0);
    await age(bank.companyId);
    expect((await runAlerts()).items).toBe(1);
    const [mail, ...more] = mailsTo(analyst.email);
    expect(more).toEqual([]);
    const body = (mail?.body ?? '').replace(/=\r?\n/g, '');
    expect(body).toContain('Subject: Redflag: a report names a customer you watch');
    expect(body).toContain(`1 report newly named customers ${bank.businessName} watches`);
    expect(body).toContain('/#watchlist');
    // Counts only: not the value (in any spelling), the reference, the report or who filed it.
    for (const secret of [phone, phone.slice(1), 'Customer 12', report.id, 'Reporting Lender'])
      expect(body).not.toContain(secret);
    // The colleague did not ask.
    expect(mailsTo(colleague.email)).toEqual([]);

    // Told once: the next run has nothing new.
    expect((await runAlerts()).items).toBe(0);
    // Leaving the list is news too, in the next mail.
    const exited = await t.app.inject({
      method: 'POST',
      url: `/api/v1/external/reports/submissions/${report.id}/exit`,
      headers: key(reporter.apiKey),
      payload: { reason: 'Customer repaid in full and was cleared.' },
    });
    expect(exited.statusCode, exited.body).toBe(200);
    await age(bank.companyId);
    expect((await runAlerts()).items).toBe(1);
    const second = (mailsTo(analyst.email)[1]?.body ?? '').replace(/=\r?\n/g, '');
    expect(second).toContain('Subject: Redflag: news about customers you watch');
    expect(second).toContain('1 report about customers');

    // Off: nothing more.
    expect((await setAlerts(analyst.headers, false)).json().data.watchlistAlerts).toEqual({
      on: false,
      available: true,
      every: 'quarter_hour',
    });
    await createReport(t, reporter.apiKey, { identifiers: [{ label: 'phone', value: phone }] });
    await age(bank.companyId);
    expect((await runAlerts()).items).toBe(0);
    expect(mailsTo(analyst.email)).toHaveLength(2);
  });

  it('mails a person who asked for one a day once, at the first run after 08:00 in Lagos that can tell the whole day', async () => {
    // 08:00 in Lagos (UTC+1 all year) two days ago, so every moment below is in the past. The runs
    // are placed around it (the service's clock); the events and the person's time are placed too.
    const today = new Date();
    const hour = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate(), 7) - 2 * 86_400_000;
    const at = (ms: number) => new Date(hour + ms);
    let runAt = at(0);
    const mailer = createMailer(sink.url, 'Redflag <desk@redflag.example>');
    const alerts = createWatchlistAlerts({
      db: t.database.db,
      mailer,
      deskUrl: 'http://desk',
      settleSeconds: WATCHLIST_ALERT_SETTLE_SECONDS,
      log: console,
      now: () => runAt,
    });
    const { bank, phone } = await watchingMember();
    const reporter = await createCompany(t);
    const analyst = await createUser(t, clock, { companyId: bank.companyId }, 'analyst');
    const daily = await setAlerts(analyst.headers, true, 'day');
    expect(daily.json().data.watchlistAlerts).toEqual({ on: true, available: true, every: 'day' });
    await sql`update users set watchlist_alerts_after = ${at(-7_200_000).toISOString()}::timestamptz
      where id = ${analyst.userId}`.execute(t.database.db);
    /** A new report naming the watched phone, its event stamped at `when`. */
    const reportAt = async (when: Date) => {
      const before = new Date().toISOString();
      await createReport(t, reporter.apiKey, { identifiers: [{ label: 'phone', value: phone }] });
      await sql`update webhook_events set created_at = ${when.toISOString()}::timestamptz
        where company_id = ${bank.companyId} and created_at >= ${before}::timestamptz`.execute(t.database.db);
    };
    const mailedAt = async (when: Date) => {
      runAt = when;
      await alerts.sendDue();
      return mailsTo(analyst.email).length;
    };
    try {
      await reportAt(at(-600_000));
      await reportAt(at(-15_000));
      // 07:59:30 in Lagos: not yet the hour.
      expect(await mailedAt(at(-30_000))).toBe(0);
      // 08:00:30: the hour has come, but the report of 07:59:45 is not a minute settled: a mail now
      // would leave it for a second one the same day.
      expect(await mailedAt(at(30_000))).toBe(0);
      // 08:01:30: both, in one mail. (Had the hour been read in UTC, 08:00 UTC, nothing yet.)
      expect(await mailedAt(at(90_000))).toBe(1);
      expect(mailsTo(analyst.email)[0]?.body.replace(/=\r?\n/g, '')).toContain('2 reports newly named customers');
      // A report at 08:20 waits for the next day's hour, run after run, and is told then, once.
      await reportAt(at(1_200_000));
      expect(await mailedAt(at(1_800_000))).toBe(1);
      expect(await mailedAt(at(86_400_000 - 60_000))).toBe(1);
      expect(await mailedAt(at(86_400_000 + 90_000))).toBe(2);
      expect(await mailedAt(at(86_400_000 + 1_000_000))).toBe(2);
    } finally {
      mailer?.close();
    }

    // Every quarter of an hour again: what is untold goes at the next run.
    const often = await setAlerts(analyst.headers, true, 'quarter_hour');
    expect(often.json().data.watchlistAlerts.every).toBe('quarter_hour');
    // Off keeps the choice of how often, for when they are on again.
    const off = await setAlerts(analyst.headers, false, 'day');
    expect(off.statusCode).toBe(200);
    expect(await alertsOf(analyst.headers)).toEqual({ on: false, available: true, every: 'day' });
    const wrong = await setAlerts(analyst.headers, true, 'hour');
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().data.errors[0].field).toBe('every');
  });

  it('keeps a refused mail due: its person is told at a later run, the others at once', async () => {
    const { bank, phone } = await watchingMember();
    const reporter = await createCompany(t);
    const admin = await createUser(t, clock, { companyId: bank.companyId }, 'admin');
    const refused = await createUser(t, clock, { companyId: bank.companyId }, 'analyst');
    await sql`update users set email = ${`refused.${refused.email}`} where email = ${refused.email}`.execute(t.database.db);
    for (const person of [admin, refused]) expect((await setAlerts(person.headers, true)).statusCode).toBe(200);
    await createReport(t, reporter.apiKey, { identifiers: [{ label: 'phone', value: phone }] });
    await age(bank.companyId);

    const run = await runAlerts();
    expect(run.error).toMatch(/1 of \d+ watchlist alert mails failed/);
    expect(mailsTo(admin.email)).toHaveLength(1);
    // Still due: the refused person's time did not move.
    const after = await sql<{ n: string }>`select count(*) as n from webhook_events e join users u on u.company_id = e.company_id
      where u.email = ${`refused.${refused.email}`} and e.created_at > u.watchlist_alerts_after`.execute(t.database.db);
    expect(Number(after.rows[0]?.n)).toBe(1);
    // Neither is mailed by the next run: the admin was told, the refused person waits an hour.
    expect(await runAlerts()).toMatchObject({ items: 0 });
    expect(mailsTo(admin.email)).toHaveLength(1);
    // An hour later the refused person is tried again (and refused again, said again).
    await sql`update users set watchlist_alerts_failed_at = watchlist_alerts_failed_at - interval '61 minutes'
      where company_id = ${bank.companyId}`.execute(t.database.db);
    expect((await runAlerts()).error).toMatch(/^1 of 1 watchlist alert mails failed \(0 sent\)/);
  });

  it.runIf(process.env.TEST_DATABASE_URL)('waits for a transaction still open, which may yet commit an older event', async () => {
    const { bank, phone } = await watchingMember();
    const reporter = await createCompany(t);
    const analyst = await createUser(t, clock, { companyId: bank.companyId }, 'analyst');
    expect((await setAlerts(analyst.headers, true)).statusCode).toBe(200);
    // The service's own job, with no settling time, so only the open transaction holds it back.
    const mailer = createMailer(`smtp://127.0.0.1:${PORT}`, 'Redflag <desk@redflag.example>');
    const alerts = createWatchlistAlerts({ db: t.database.db, mailer, deskUrl: 'http://desk', settleSeconds: 0, log: console });
    const pg = (await import('pg')).default;
    const other = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await other.connect();
    try {
      // A transaction begun before the report, still open: its events would be stamped earlier.
      await other.query('begin');
      await other.query('select now()');
      await createReport(t, reporter.apiKey, { identifiers: [{ label: 'phone', value: phone }] });
      expect(await alerts.sendDue()).toBe(0);
      await other.query('commit');
      expect(await alerts.sendDue()).toBe(1);
      expect(mailsTo(analyst.email)).toHaveLength(1);
    } finally {
      await other.end();
      mailer?.close();
    }
  });

  it('keeps a person’s own choice made while a mail was on its way, and refuses a change from another site', async () => {
    const { bank, phone } = await watchingMember();
    const reporter = await createCompany(t);
    const analyst = await createUser(t, clock, { companyId: bank.companyId }, 'analyst');
    expect((await setAlerts(analyst.headers, true)).statusCode).toBe(200);
    await createReport(t, reporter.apiKey, { identifiers: [{ label: 'phone', value: phone }] });
    await age(bank.companyId);
    // Turned off and on again while the job mailed: the new choice (from now) stands, not the
    // time the job read, which would tell them again of what came before.
    const db = t.database.db;
    const timeOf = async () =>
      (
        await sql<{
          after: string;
        }>`select watchlist_alerts_after::text as after from users where email = ${analyst.email}`.execute(db)
      ).rows[0]?.after;
    const read = await timeOf();
    await setAlerts(analyst.headers, false);
    await setAlerts(analyst.headers, true);
    const chosen = await timeOf();
    const { markTold } = await import('../src/modules/watchlists/watchlist-alerts.repository.js');
    await markTold(db, analyst.userId, read as string, '2000-01-01 00:00:00+00');
    expect(await timeOf()).toBe(chosen);

    // A session's change must come from the desk's own origin (the session layer's rule, on this route too).
    const { origin: _origin, ...withoutOrigin } = analyst.headers as Record<string, string>;
    const foreign = await t.app.inject({ method: 'PUT', url: ALERTS, headers: withoutOrigin, payload: { on: false } });
    expect(foreign.statusCode).toBe(403);
    const elsewhere = await t.app.inject({
      method: 'PUT',
      url: ALERTS,
      headers: { ...withoutOrigin, origin: 'https://evil.example' },
      payload: { on: false },
    });
    expect(elsewhere.statusCode).toBe(403);
    expect(await alertsOf(analyst.headers)).toEqual({ on: true, available: true, every: 'quarter_hour' });
  });

  it('leaves out a removed person, a viewer and a suspended member', async () => {
    const { bank, phone } = await watchingMember();
    const reporter = await createCompany(t);
    const stays = await createUser(t, clock, { companyId: bank.companyId }, 'analyst');
    const removed = await createUser(t, clock, { companyId: bank.companyId }, 'analyst');
    const demoted = await createUser(t, clock, { companyId: bank.companyId }, 'admin', { totp: true });
    for (const person of [stays, removed, demoted]) expect((await setAlerts(person.headers, true)).statusCode).toBe(200);
    const db = t.database.db;
    await sql`update users set status = 'removed' where email = ${removed.email}`.execute(db);
    await sql`update users set role = 'viewer' where email = ${demoted.email}`.execute(db);
    await createReport(t, reporter.apiKey, { identifiers: [{ label: 'phone', value: phone }] });
    await age(bank.companyId);
    expect((await runAlerts()).items).toBe(1);
    expect(mailsTo(stays.email)).toHaveLength(1);

    await createReport(t, reporter.apiKey, { identifiers: [{ label: 'phone', value: phone }] });
    await age(bank.companyId);
    await sql`update companies set status = 'suspended' where id = ${bank.companyId}`.execute(db);
    expect((await runAlerts()).items).toBe(0);
    expect(mailsTo(stays.email)).toHaveLength(1);
  });

  it('refuses a viewer and an operator (they watch no customers), and a service that sends no e-mail', async () => {
    const bank = await createCompany(t);
    const viewer = await createUser(t, clock, { companyId: bank.companyId }, 'viewer');
    expect(await alertsOf(viewer.headers)).toEqual({ on: false, available: false, every: 'quarter_hour' });
    const refused = await setAlerts(viewer.headers, true);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().data.code).toBe('FORBIDDEN');
    const operator = await createOperator(t);
    const moderator = await createUser(t, clock, { operatorId: operator.operatorId }, 'moderator');
    expect((await setAlerts(moderator.headers, true)).statusCode).toBe(403);
    // Off is always allowed (nothing to refuse).
    expect((await setAlerts(viewer.headers, false)).statusCode).toBe(200);
    // A key is not a person: no alerts by API key.
    expect((await t.app.inject({ url: ALERTS, headers: key(bank.apiKey) })).statusCode).toBe(401);
    const bad = await t.app.inject({ method: 'PUT', url: ALERTS, headers: viewer.headers, payload: { on: 'yes' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().data.errors[0].field).toBe('on');

    const silent = await buildTestApp({ now: clock.now });
    try {
      const company = await createCompany(silent);
      const analyst = await createUser(silent, clock, { companyId: company.companyId }, 'analyst');
      const res = await silent.app.inject({ url: ALERTS, headers: analyst.headers });
      expect(res.json().data.watchlistAlerts).toEqual({ on: false, available: false, every: 'quarter_hour' });
      const on = await silent.app.inject({ method: 'PUT', url: ALERTS, headers: analyst.headers, payload: { on: true } });
      expect(on.statusCode).toBe(409);
      expect(on.json().data.code).toBe('INVALID_STATE');
      expect(on.json().message).toContain('sends no e-mail');
    } finally {
      await silent.close();
    }
  });

  it('waits, like every other page of a member, until an administrator has enrolled the second factor', async () => {
    const bank = await createCompany(t);
    const invited = await invite(t, { companyId: bank.companyId }, 'admin');
    expect((await accept(t, invited.token)).statusCode).toBe(200);
    const signedIn = await signIn(t, invited.email);
    expect(signedIn.json().data.totpEnrolmentRequired).toBe(true);
    const cookie = sessionCookie(signedIn);
    const headers = sessionHeaders(t, cookie);
    for (const res of [await t.app.inject({ url: ALERTS, headers }), await setAlerts(headers, true)]) {
      expect(res.statusCode).toBe(403);
      expect(res.json().data.code).toBe('TOTP_ENROLMENT_REQUIRED');
    }
    expect(
      await t.database.db
        .selectFrom('users')
        .select('watchlist_alerts_after')
        .where('id', '=', signedIn.json().data.user.id)
        .executeTakeFirstOrThrow(),
    ).toEqual({ watchlist_alerts_after: null });
    await enrolTotp(t, cookie, clock);
    expect((await setAlerts(headers, true)).statusCode).toBe(200);
    expect(await alertsOf(headers)).toEqual({ on: true, available: true, every: 'quarter_hour' });
  });
});
