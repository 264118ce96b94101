import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { movableClock } from './helpers/clock.js';
import { createCompany, createOperator, key } from './helpers/principals.js';
import { ADMIN, filePublicReport, uniquePhone } from './helpers/public-reports.js';
import { createReport } from './helpers/reports.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';
import { type Receiver, startReceiver } from './helpers/webhook-receiver.js';

const ALL_EVENTS = [
  'watchlist.match',
  'public_report.published',
  'public_report.withdrawn',
  'submission.exited',
  'submission.relisted',
  'submission.disputed',
];

describe('webhook events from the outbox, verified by the standardwebhooks package', () => {
  let t: TestApp;
  let receiver: Receiver;
  const clock = movableClock();
  let reporter: Awaited<ReturnType<typeof createCompany>>;
  let watcher: Awaited<ReturnType<typeof createCompany>>;
  let bank: Awaited<ReturnType<typeof createCompany>>;
  let operator: Awaited<ReturnType<typeof createOperator>>;

  const deliver = () => t.app.jobs.runNow('webhooks.deliver');

  async function registerWebhook(apiKey: string, path: string, events = ALL_EVENTS) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/external/webhooks',
      headers: key(apiKey),
      payload: { url: receiver.url(path), events },
    });
    expect(res.statusCode).toBe(201);
    const webhook = res.json().data.webhook;
    expect(webhook.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    receiver.secrets.push(webhook.secret);
    return webhook;
  }

  async function watch(apiKey: string, items: Array<{ label: string; value: string; ref?: string }>) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/external/watchlist',
      headers: key(apiKey),
      payload: { items },
    });
    expect(res.statusCode).toBe(200);
    return res.json().data.results as Array<{ id?: string; error?: unknown }>;
  }

  const transition = (apiKey: string, id: string, what: string, payload?: object) =>
    t.app.inject({
      method: 'POST',
      url: `/api/v1/external/reports/submissions/${id}/${what}`,
      headers: key(apiKey),
      ...(payload ? { payload } : {}),
    });

  beforeAll(async () => {
    t = await buildTestApp({
      clock,
      config: { webhookAllowPrivate: true, webhookPollMs: 0, jobTickSeconds: 0, listingDays: 91 },
    });
    receiver = await startReceiver();
    reporter = await createCompany(t, { businessName: 'Reporting Bank Plc' });
    watcher = await createCompany(t);
    bank = await createCompany(t);
    operator = await createOperator(t);
    await registerWebhook(watcher.apiKey, '/watcher');
    // As an endpoint registered before public_report.withdrawn existed: it still hears of a takedown.
    await registerWebhook(
      bank.apiKey,
      '/bank',
      ALL_EVENTS.filter((e) => e !== 'public_report.withdrawn'),
    );
    await registerWebhook(reporter.apiKey, '/reporter');
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  it('watchlist.match fires once when another company publishes, never for drafts, searches or its own report', async () => {
    const phone = uniquePhone();
    const [entry] = await watch(watcher.apiKey, [{ label: 'phone', value: phone, ref: 'customer-42' }]);
    const draft = await createReport(t, reporter.apiKey, { identifiers: [{ label: 'phone', value: phone }], status: 'draft' });
    const search = await t.app.inject({
      method: 'POST',
      url: '/api/v1/external/reports/search',
      headers: key(watcher.apiKey),
      payload: { identifier: 'phone', value: phone },
    });
    expect(search.statusCode).toBe(200);
    // The watcher's own report with the same identifier: published, and still nothing for it.
    const own = await createReport(t, watcher.apiKey, { identifiers: [{ label: 'phone', value: phone }] });
    await transition(watcher.apiKey, own.id, 'publish');
    await deliver();
    expect(receiver.at('/watcher')).toHaveLength(0);

    expect((await transition(reporter.apiKey, draft.id, 'publish')).statusCode).toBe(200);
    await deliver();
    await deliver();
    const got = receiver.at('/watcher', 'watchlist.match');
    expect(got).toHaveLength(1);
    const match = got[0] as (typeof got)[number];
    expect(match.verifiedBy).toEqual([0]);
    expect(match.json.data).toEqual({
      watchlistEntry: { id: entry?.id, label: 'phone', ref: 'customer-42' },
      report: { id: draft.id, kind: 'report', fraudType: 'money_mule', reportingCompany: 'Reporting Bank Plc' },
    });
    expect(match.headers['webhook-id']).toMatch(/^msg_/);
    // No clear value on the wire.
    expect(match.body).not.toContain(phone.slice(1));
  });

  it('submission.exited and submission.relisted reach the company whose watchlist matched, and no second match', async () => {
    const phone = uniquePhone();
    await watch(watcher.apiKey, [{ label: 'phone', value: phone }]);
    const report = await createReport(t, reporter.apiKey, { identifiers: [{ label: 'phone', value: phone }] });
    await deliver();
    const matchesBefore = receiver.at('/watcher', 'watchlist.match').length;
    expect((await transition(reporter.apiKey, report.id, 'exit', { reason: 'Customer repaid' })).statusCode).toBe(200);
    await deliver();
    const exited = receiver.at('/watcher', 'submission.exited').filter((r) => r.json.data.report?.id === report.id);
    expect(exited).toHaveLength(1);
    expect((await transition(reporter.apiKey, report.id, 'relist')).statusCode).toBe(200);
    await deliver();
    const relisted = receiver.at('/watcher', 'submission.relisted').filter((r) => r.json.data.report?.id === report.id);
    expect(relisted).toHaveLength(1);
    expect(receiver.at('/watcher', 'watchlist.match')).toHaveLength(matchesBefore);
    expect(receiver.at('/bank')).toHaveLength(0);
  });

  it('a published public report sends watchlist.match and public_report.published to the linked bank; notificationSent turns true', async () => {
    const link = await t.app.inject({
      method: 'PUT',
      url: `/api/v1/admin/companies/${bank.companyId}/bank`,
      headers: key(operator.apiKey),
      payload: { bankSlug: 'access-bank' },
    });
    expect(link.statusCode).toBe(200);
    const phone = uniquePhone();
    const [entry] = await watch(watcher.apiKey, [{ label: 'phone', value: phone, ref: 'c-7' }]);
    const rejected = await filePublicReport(t, phone);
    const publicId = await filePublicReport(t, phone);
    // A draft and a rejected report fire nothing.
    await t.app.inject({
      method: 'POST',
      url: `${ADMIN}/${rejected}/reject`,
      headers: key(operator.apiKey),
      payload: { reason: 'Spam' },
    });
    await deliver();
    expect(receiver.at('/bank')).toHaveLength(0);
    const before = receiver.at('/watcher', 'watchlist.match').length;

    const published = await t.app.inject({ method: 'POST', url: `${ADMIN}/${publicId}/publish`, headers: key(operator.apiKey) });
    expect(published.statusCode).toBe(200);
    expect(published.json().data.report.notificationSent).toBe(false);
    await deliver();
    const toBank = receiver.at('/bank', 'public_report.published');
    expect(toBank).toHaveLength(1);
    expect(toBank[0]?.verifiedBy).toEqual([1]);
    expect(toBank[0]?.json.data.publicReport).toMatchObject({ id: publicId, fraudType: 'romance_fraud' });
    const matches = receiver.at('/watcher', 'watchlist.match');
    expect(matches).toHaveLength(before + 1);
    expect(matches.at(-1)?.json.data).toEqual({
      watchlistEntry: { id: entry?.id, label: 'phone', ref: 'c-7' },
      report: { id: publicId, kind: 'public_report', fraudType: 'romance_fraud', reportingCompany: null },
    });
    const read = await t.app.inject({ method: 'GET', url: `${ADMIN}/${publicId}`, headers: key(operator.apiKey) });
    expect(read.json().data.report.notificationSent).toBe(true);
  });

  it('a published public report taken down sends submission.exited to the entries it matched, once', async () => {
    const phone = uniquePhone();
    const [entry] = await watch(watcher.apiKey, [{ label: 'phone', value: phone, ref: 'c-9' }]);
    const [dropped] = await watch(bank.apiKey, [{ label: 'phone', value: phone, ref: 'c-10' }]);
    const publicId = await filePublicReport(t, phone);
    expect(
      (await t.app.inject({ method: 'POST', url: `${ADMIN}/${publicId}/publish`, headers: key(operator.apiKey) })).statusCode,
    ).toBe(200);
    await deliver();
    const matched = (path: string) => receiver.at(path, 'watchlist.match').filter((r) => r.json.data.report?.id === publicId);
    expect([matched('/watcher').length, matched('/bank').length]).toEqual([1, 1]);
    // The bank linked to Access Bank (the test above) was told of the publication.
    const told = receiver.at('/bank', 'public_report.published').filter((r) => r.json.data.publicReport?.id === publicId);
    expect(told).toHaveLength(1);
    // An entry its member stopped watching before the takedown hears nothing more.
    const unwatched = await t.app.inject({
      method: 'DELETE',
      url: `/api/v1/external/watchlist/${dropped?.id}`,
      headers: key(bank.apiKey),
    });
    expect(unwatched.statusCode).toBe(200);
    const reject = () =>
      t.app.inject({
        method: 'POST',
        url: `${ADMIN}/${publicId}/reject`,
        headers: key(operator.apiKey),
        payload: { reason: 'Court order' },
      });
    expect((await reject()).statusCode).toBe(200);
    // Taken down twice is refused: no second event.
    expect((await reject()).statusCode).toBe(409);
    await deliver();
    const exited = receiver.at('/watcher', 'submission.exited').filter((r) => r.json.data.report?.id === publicId);
    expect(exited).toHaveLength(1);
    expect(exited[0]?.json.data).toEqual({
      watchlistEntry: { id: entry?.id, label: 'phone', ref: 'c-9' },
      report: { id: publicId, kind: 'public_report', fraudType: 'romance_fraud', reportingCompany: null },
    });
    expect(receiver.at('/bank', 'submission.exited').filter((r) => r.json.data.report?.id === publicId)).toHaveLength(0);
    // The bank told of the publication is told of the takedown, with what it was told then; the
    // watcher, not linked to the bank, is not.
    const withdrawn = receiver.at('/bank', 'public_report.withdrawn');
    expect(withdrawn.map((r) => r.json.data)).toEqual([{ publicReport: told[0]?.json.data.publicReport }]);
    expect(receiver.at('/watcher', 'public_report.withdrawn')).toHaveLength(0);
    expect(JSON.stringify(withdrawn[0]?.json)).not.toContain(phone.slice(-7));
    // The payload names no value: the phone is nowhere in what was sent.
    expect(JSON.stringify(exited[0]?.json)).not.toContain(phone.slice(-7));
  });

  it('a report leaving the list through a dispute sends submission.exited to its watchers', async () => {
    const phone = uniquePhone();
    await watch(watcher.apiKey, [{ label: 'phone', value: phone }]);
    const report = await createReport(t, reporter.apiKey, { identifiers: [{ label: 'phone', value: phone }] });
    const opened = await t.app.inject({
      method: 'POST',
      url: '/api/v1/external/disputes',
      headers: key(bank.apiKey),
      payload: { reportId: report.id, reason: 'This customer was cleared by our investigation last month, with evidence.' },
    });
    expect(opened.statusCode).toBe(201);
    const dispute = opened.json().data.dispute;
    await deliver();
    // The owner hears of the dispute at once, with the deadline its answer is due by.
    const disputed = receiver.at('/reporter', 'submission.disputed').filter((r) => r.json.data.report?.id === report.id);
    expect(disputed.map((r) => r.json.data)).toEqual([
      {
        dispute: { id: dispute.id, status: 'open', respondBy: dispute.respondBy },
        report: { id: report.id, kind: 'report', fraudType: report.fraudType },
      },
    ]);
    expect(receiver.at('/watcher', 'submission.disputed')).toHaveLength(0);
    expect(receiver.at('/bank', 'submission.disputed')).toHaveLength(0);
    const exit = await t.app.inject({
      method: 'POST',
      url: `/api/v1/external/disputes/${opened.json().data.dispute.id}/exit`,
      headers: key(reporter.apiKey),
      payload: { reason: 'Agreed after review' },
    });
    expect(exit.statusCode).toBe(200);
    await deliver();
    const exited = receiver.at('/watcher', 'submission.exited').filter((r) => r.json.data.report?.id === report.id);
    expect(exited).toHaveLength(1);
    // The disputing bank watches nothing here: it hears nothing.
    expect(receiver.at('/bank', 'submission.exited')).toHaveLength(0);
  });

  // Last: it moves the clock past the listing period of every report of this file.
  it('a report expiring off the list sends submission.exited to the watchers it matched', async () => {
    const phone = uniquePhone();
    await watch(watcher.apiKey, [{ label: 'phone', value: phone, ref: 'expiring' }]);
    const report = await createReport(t, reporter.apiKey, { identifiers: [{ label: 'phone', value: phone }] });
    await deliver();
    clock.advanceDays(92);
    expect((await t.app.jobs.runNow('listings.expire')).items).toBeGreaterThan(0);
    await deliver();
    const exited = receiver.at('/watcher', 'submission.exited').filter((r) => r.json.data.report?.id === report.id);
    expect(exited).toHaveLength(1);
    expect(exited[0]?.json.data.watchlistEntry?.ref).toBe('expiring');
    expect(exited[0]?.verifiedBy).toEqual([0]);
  });
});
