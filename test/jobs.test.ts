import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { movableClock } from './helpers/clock.js';
import { localPhone } from './helpers/identifiers.js';
import { createUser } from './helpers/people.js';
import { createCompany, createOperator, key } from './helpers/principals.js';
import { ADMIN, filePublicReport, nextAddress, uniquePhone } from './helpers/public-reports.js';
import { createReport } from './helpers/reports.js';
import { buildSiblingApp, buildTestApp, type TestApp } from './helpers/test-app.js';
import { samples, uploadFile } from './helpers/uploads.js';

const clock = movableClock();
let t: TestApp;
let company: Awaited<ReturnType<typeof createCompany>>;
let operator: Awaited<ReturnType<typeof createOperator>>;
const SUBMISSIONS = '/api/v1/external/reports/submissions';
const STATEMENT = 'The customer is still under investigation by our fraud desk; the listing must stay in force.';

beforeAll(async () => {
  t = await buildTestApp({ clock, config: { jobTickSeconds: 0 } });
  company = await createCompany(t);
  operator = await createOperator(t);
});
afterAll(() => t.close());

const submission = async (id: string) =>
  (await t.app.inject({ url: `${SUBMISSIONS}/${id}`, headers: key(company.apiKey) })).json().data.report;
const renew = (id: string) =>
  t.app.inject({
    method: 'POST',
    url: `${SUBMISSIONS}/${id}/renew`,
    headers: key(company.apiKey),
    payload: { statement: STATEMENT },
  });

describe('the scheduler', () => {
  it('runs each due job once across two instances, then nothing until it is due again; visible in /metrics', async () => {
    const sibling = await buildSiblingApp(t, { jobTickSeconds: 0 });
    try {
      const [first, second] = await Promise.all([t.app.jobs.tick(), sibling.jobs.tick()]);
      for (const job of t.app.jobs.jobs) {
        const ran = [...first, ...second].filter((o) => o.name === job.name && o.ran);
        expect(ran, job.name).toHaveLength(1);
        expect(ran[0]?.error, job.name).toBeUndefined();
      }
      expect((await t.app.jobs.tick()).filter((o) => o.ran)).toEqual([]);
    } finally {
      await sibling.close();
    }
    const status = await t.app.jobs.status();
    expect(status.map((s) => s.name)).toEqual(t.app.jobs.jobs.map((j) => j.name));
    expect(status.every((s) => s.lastStatus === 'ok' && s.runs === 1 && !s.running)).toBe(true);

    // /metrics needs an operator key (or an allowed address).
    const operator = await createOperator(t);
    const metrics = await t.app.inject({ url: '/metrics', headers: { 'x-api-key': operator.apiKey } });
    expect(metrics.body).toMatch(/redflag_job_last_finished_timestamp_seconds\{job="listings.expire",status="ok"\} \d+/);
  });
});

describe('listing expiry and renewal', () => {
  it('a report leaves the list "Expired" after the listing period unless renewed in its last 90 days', async () => {
    const kept = await createReport(t, company.apiKey, { identifiers: [{ label: 'phone', value: localPhone() }] });
    const lapsed = await createReport(t, company.apiKey, { identifiers: [{ label: 'phone', value: localPhone() }] });
    expect((await renew(kept.id)).statusCode).toBe(409);
    // The owner reads when the period ends and from when it may renew it.
    const before = await submission(kept.id);
    expect(Date.parse(before.listedUntil) - Date.parse(before.renewableFrom)).toBe(90 * 86_400_000);
    expect(Date.parse(before.listedUntil) - Date.now()).toBeGreaterThan(2189 * 86_400_000);

    clock.advanceDays(2190 - 30);
    await t.app.jobs.runNow('listings.expire');
    expect((await submission(lapsed.id)).listingStatus).toBe('listed');
    const renewed = await renew(kept.id);
    expect(renewed.statusCode, renewed.body).toBe(200);
    expect(Date.parse(renewed.json().data.report.listedUntil)).toBeGreaterThan(Date.parse(before.listedUntil));

    clock.advanceDays(31);
    const run = await t.app.jobs.runNow('listings.expire');
    expect(run.items).toBeGreaterThanOrEqual(1);
    expect(await submission(lapsed.id)).toMatchObject({ listingStatus: 'exited', exitListReason: 'Expired' });
    expect((await submission(kept.id)).listingStatus).toBe('listed');
    expect((await t.app.jobs.runNow('listings.expire')).items).toBe(0);

    clock.advanceDays(2190);
    await t.app.jobs.runNow('listings.expire');
    expect(await submission(kept.id)).toMatchObject({ listingStatus: 'exited', exitListReason: 'Expired', exitedBy: 'expiry' });
    // Expired, it comes back by renewal (a statement, a new period), never by a bare relist, which
    // would have left it due to expire again at the job's next run.
    const relisted = await t.app.inject({
      method: 'POST',
      url: `${SUBMISSIONS}/${kept.id}/relist`,
      headers: key(company.apiKey),
    });
    expect(relisted.statusCode).toBe(409);
    expect(relisted.json().message).toContain('renew the report with a statement');
    const back = await renew(kept.id);
    expect(back.statusCode, back.body).toBe(200);
    expect(back.json().data.report).toMatchObject({ listingStatus: 'listed', exitedBy: null, exitListReason: null });
    expect(Date.parse(back.json().data.report.listedUntil)).toBeGreaterThan(clock.now().getTime() + 2189 * 86_400_000);
    await t.app.jobs.runNow('listings.expire');
    expect((await submission(kept.id)).listingStatus).toBe('listed');
    clock.reset();

    // From the desk: an analyst's session renews (the audit row names the user, not a key).
    const byDesk = await createReport(t, company.apiKey, { identifiers: [{ label: 'phone', value: localPhone() }] });
    clock.advanceDays(2190 - 30);
    const analyst = await createUser(t, { ...clock, advance: () => {} }, { companyId: company.companyId }, 'analyst');
    const fromDesk = await t.app.inject({
      method: 'POST',
      url: `${SUBMISSIONS}/${byDesk.id}/renew`,
      headers: analyst.headers,
      payload: { statement: STATEMENT },
    });
    expect(fromDesk.statusCode, fromDesk.body).toBe(200);
    const renewedBy = await t.database.db
      .selectFrom('audit_events')
      .select(['key_id', 'user_id'])
      .where('report_id', '=', byDesk.id)
      .where('action', '=', 'renew')
      .executeTakeFirstOrThrow();
    expect(renewedBy).toEqual({ key_id: null, user_id: analyst.userId });
    clock.reset();

    const trail = await t.database.db
      .selectFrom('audit_events')
      .select('action')
      .where('report_id', '=', kept.id)
      .orderBy('id')
      .execute();
    expect(trail.map((r) => r.action)).toEqual(['create', 'renew', 'expire', 'submission.exited', 'renew']);
  });
});

describe('public-report clean-up', () => {
  it('deletes never-moderated drafts after 90 days and rejected reports after 30, with evidence and contacts', async () => {
    const asOperator = (url: string, payload?: object) =>
      t.app.inject({ method: 'POST', url, headers: key(operator.apiKey), ...(payload ? { payload } : {}) });
    const upload = await uploadFile(t, undefined, samples.png(), { url: '/api/v1/public/uploads', remoteAddress: nextAddress() });
    const rejected = await filePublicReport(t, uniquePhone(), { attachments: [upload.json().data.url] });
    expect((await asOperator(`${ADMIN}/${rejected}/reject`, { reason: 'Not a fraud report at all' })).statusCode).toBe(200);
    const draft = await filePublicReport(t, uniquePhone());
    const published = await filePublicReport(t, uniquePhone());
    await asOperator(`${ADMIN}/${published}/publish`);
    const exists = async (id: string) =>
      (await t.database.db.selectFrom('public_reports').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
    const files = () => t.database.db.selectFrom('uploads').select('storage_key').where('record_id', '=', rejected).execute();
    const [file] = await files();
    expect(file).toBeDefined();

    clock.advanceDays(31);
    await t.app.jobs.runNow('public-reports.cleanup');
    expect(await exists(rejected)).toBe(false);
    expect(await files()).toEqual([]);
    const blobs = await t.database.db
      .selectFrom('upload_blobs')
      .select('key')
      .where('key', '=', file?.storage_key ?? '')
      .execute();
    expect(blobs).toEqual([]);
    expect(await exists(draft)).toBe(true);

    clock.advanceDays(60);
    await t.app.jobs.runNow('public-reports.cleanup');
    expect(await exists(draft)).toBe(false);
    expect(await exists(published)).toBe(true);
    expect((await t.app.jobs.runNow('public-reports.cleanup')).items).toBe(0);
    clock.reset();
  });
});

describe('audit retention', () => {
  it('deletes audit rows older than REDFLAG_AUDIT_DAYS and keeps newer ones', async () => {
    const count = async () =>
      Number(
        (
          await t.database.db
            .selectFrom('audit_events')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    expect(await count()).toBeGreaterThan(0);
    clock.advanceDays(2554);
    await t.app.jobs.runNow('audit.retention');
    expect(await count()).toBeGreaterThan(0);
    clock.advanceDays(2);
    await t.app.jobs.runNow('audit.retention');
    expect(await count()).toBe(0);
    clock.reset();
  });
});

describe('review-request retention', () => {
  it('deletes a closed review request a year after its closing and never one still waiting', async () => {
    const statement = 'This account is my salary account and has never received money from anyone I do not know personally.';
    const ask = async () =>
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/v1/public/review-requests',
          remoteAddress: nextAddress(),
          payload: {
            name: 'Ada Obi',
            email: 'ada@example.com',
            identifiers: [{ label: 'phone', value: uniquePhone() }],
            statement,
          },
        })
      ).json().data.id as string;
    const closed = await ask();
    const waiting = await ask();
    const read = await t.app.inject({ url: `/api/v1/admin/review-requests/${closed}`, headers: key(operator.apiKey) });
    expect(read.statusCode).toBe(200);
    const close = await t.app.inject({
      method: 'POST',
      url: `/api/v1/admin/review-requests/${closed}/close`,
      headers: key(operator.apiKey),
      payload: { outcome: 'not_listed', note: 'Nothing is listed under these details; told the person by e-mail.' },
    });
    expect(close.statusCode, close.body).toBe(200);
    const exists = async (id: string) =>
      (await t.database.db.selectFrom('review_requests').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;

    clock.advanceDays(364);
    await t.app.jobs.runNow('review-requests.retention');
    expect(await exists(closed)).toBe(true);
    clock.advanceDays(2);
    expect((await t.app.jobs.runNow('review-requests.retention')).items).toBe(1);
    expect(await exists(closed)).toBe(false);
    expect(await exists(waiting)).toBe(true);
    // The operators' audited read and closing stay in the trail, naming only the request's id.
    const trail = await t.database.db
      .selectFrom('audit_events')
      .select('action')
      .where('subject_id', '=', closed)
      .orderBy('id')
      .execute();
    expect(trail.map((r) => r.action)).toEqual(['review_read', 'review_close']);
    clock.reset();
  });
});

describe('a run longer than its lease', () => {
  it('keeps its claim while it works: another instance does not start the same job beside it', async () => {
    const { createScheduler } = await import('../src/jobs/scheduler.js');
    const { systemClock } = await import('../src/jobs/clock.js');
    const name = `slow-${process.pid}`;
    let running = 0;
    let most = 0;
    const slow = {
      name,
      description: 'a job that takes longer than the lease',
      everySeconds: 3600,
      run: async () => {
        running++;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, 4000));
        running--;
        return 1;
      },
    };
    const quiet = { info: () => {}, warn: () => {}, error: () => {} };
    // A lease of 1.5 s renewed every 0.5 s, for a run of 4 s: the second instance tries at 2.5 s.
    const instance = () => createScheduler({ db: t.database.db, clock: systemClock, jobs: [slow], log: quiet, leaseMs: 1500 });
    const [first, second] = [instance(), instance()];
    const firstRun = first.runNow(name);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(await second.runNow(name)).toEqual({ name, ran: false });
    expect(await firstRun).toMatchObject({ name, ran: true, items: 1 });
    expect(most).toBe(1);
    const [row] = (await first.status()).filter((s) => s.name === name);
    expect(row).toMatchObject({ lastStatus: 'ok', runs: 1, running: false });
  });
});
