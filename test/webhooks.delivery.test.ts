import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOT_PREPARED, NOT_PREPARED_GIVEN_UP } from '../src/modules/webhooks/delivery.worker.js';
import { movableClock } from './helpers/clock.js';
import { createCompany, key } from './helpers/principals.js';
import { uniquePhone } from './helpers/public-reports.js';
import { createReport } from './helpers/reports.js';
import { buildSiblingApp, buildTestApp, type TestApp } from './helpers/test-app.js';
import { type Receiver, startReceiver } from './helpers/webhook-receiver.js';

const HOOKS = '/api/v1/external/webhooks';
const hourDays = 1 / 24;

describe('webhook delivery: retries, disabling, rotation, redelivery, one instance per delivery', () => {
  let t: TestApp;
  let receiver: Receiver;
  const clock = movableClock();
  let reporter: Awaited<ReturnType<typeof createCompany>>;

  const deliver = () => t.app.jobs.runNow('webhooks.deliver');

  /** A company with an endpoint at `path` and a watched phone; returns what makes it an event. */
  async function subscriber(path: string) {
    const company = await createCompany(t);
    const res = await t.app.inject({
      method: 'POST',
      url: HOOKS,
      headers: key(company.apiKey),
      payload: { url: receiver.url(path), events: ['watchlist.match'] },
    });
    expect(res.statusCode).toBe(201);
    const webhook = res.json().data.webhook;
    receiver.secrets.push(webhook.secret);
    const phones: string[] = [];
    return {
      ...company,
      webhook,
      secretIndex: receiver.secrets.length - 1,
      /** Watches a new phone and has the reporter publish a report carrying it: one watchlist.match. */
      async raise(n = 1, ref?: string) {
        const items = Array.from({ length: n }, () => ({ label: 'phone', value: uniquePhone(), ref }));
        phones.push(...items.map((i) => i.value));
        await t.app.inject({
          method: 'POST',
          url: '/api/v1/external/watchlist',
          headers: key(company.apiKey),
          payload: { items },
        });
        for (const { label, value } of items) await createReport(t, reporter.apiKey, { identifiers: [{ label, value }] });
      },
      async log() {
        const r = await t.app.inject({ method: 'GET', url: `${HOOKS}/${webhook.id}/deliveries`, headers: key(company.apiKey) });
        expect(r.statusCode).toBe(200);
        return r.json().data.data as Array<{
          id: string;
          status: string;
          attempts: number;
          log: Array<{ attempt: number; statusCode: number | null; error: string | null; latencyMs: number }>;
        }>;
      },
    };
  }

  beforeAll(async () => {
    t = await buildTestApp({ clock, config: { webhookAllowPrivate: true, webhookPollMs: 0, jobTickSeconds: 0 } });
    receiver = await startReceiver();
    reporter = await createCompany(t);
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  it('a receiver that fails 3 times gets the event on the 4th attempt, after backoff; the log records each attempt', async () => {
    const s = await subscriber('/retry');
    receiver.failNext(3);
    await s.raise();
    await deliver();
    // Not due again before its backoff.
    await deliver();
    expect((await s.log())[0]?.attempts).toBe(1);
    for (let i = 0; i < 3; i++) {
      clock.advanceDays(hourDays);
      await deliver();
    }
    const [delivery] = await s.log();
    expect(delivery?.status).toBe('delivered');
    expect(delivery?.log.map((a) => a.statusCode)).toEqual([500, 500, 500, 204]);
    expect(delivery?.log.map((a) => a.attempt)).toEqual([1, 2, 3, 4]);
    expect(delivery?.log[0]?.error).toBe('HTTP 500');
    const got = receiver.at('/retry');
    expect(got).toHaveLength(1);
    expect(got[0]?.verifiedBy).toEqual([s.secretIndex]);
    expect(got[0]?.id).toBe(`msg_${delivery?.id}`);
  });

  it('an endpoint failing for 3 days is disabled (audited) and gets nothing until re-enabled', async () => {
    const s = await subscriber('/down');
    receiver.failing.add('/down');
    await s.raise();
    for (let day = 0; day <= 3; day++) {
      await deliver();
      if (day === 0) {
        // Its member sees that it fails, and since when, before it is paused.
        const failing = await t.app.inject({ method: 'GET', url: `${HOOKS}/${s.webhook.id}`, headers: key(s.apiKey) });
        expect(failing.json().data.webhook).toMatchObject({ status: 'active', failingSince: expect.any(String) });
      }
      clock.advanceDays(1);
    }
    await deliver();
    const read = await t.app.inject({ method: 'GET', url: `${HOOKS}/${s.webhook.id}`, headers: key(s.apiKey) });
    expect(read.json().data.webhook.status).toBe('disabled');
    const audit = await t.app.inject({
      method: 'GET',
      url: '/api/v1/external/audit?action=webhook.disabled',
      headers: key(s.apiKey),
    });
    expect(audit.json().data.data).toHaveLength(1);
    receiver.failing.delete('/down');
    await s.raise();
    await deliver();
    expect(receiver.at('/down')).toHaveLength(0);
    const enabled = await t.app.inject({
      method: 'PATCH',
      url: `${HOOKS}/${s.webhook.id}`,
      headers: key(s.apiKey),
      payload: { enabled: true },
    });
    expect(enabled.json().data.webhook.status).toBe('active');
    await s.raise();
    await deliver();
    expect(receiver.at('/down')).toHaveLength(1);
    const healthy = await t.app.inject({ method: 'GET', url: `${HOOKS}/${s.webhook.id}`, headers: key(s.apiKey) });
    expect(healthy.json().data.webhook.failingSince).toBeNull();
    const log = await s.log();
    expect(log.map((d) => d.status)).toEqual(['delivered', 'failed']);
  });

  it("a reference this instance cannot open is retried for 3 days without counting against the member's endpoint", async () => {
    clock.reset(); // the tests before moved it past the 3 days a delivery is tried for
    const s = await subscriber('/sealed');
    await s.raise(1, 'Customer 1');
    await s.raise(1, 'Customer 2');
    const entries = (await t.app.inject({ url: '/api/v1/external/watchlist', headers: key(s.apiKey) })).json().data
      .data as Array<{ id: string; ref: string }>;
    const [first, second] = ['Customer 1', 'Customer 2'].map((ref) => entries.find((e) => e.ref === ref)?.id as string);
    // The first entry's token moved to the second: sealed for another entry, it does not open there.
    await sql`update watchlist_entries set ref_token = (select ref_token from watchlist_entries where id = ${first})
      where id = ${second}`.execute(t.database.db);
    // Three days of attempts would have the endpoint marked failing, and past them disabled.
    for (let day = 0; day < 3; day++) {
      await deliver();
      clock.advanceDays(1);
    }
    expect(receiver.at('/sealed')).toHaveLength(1);
    const waiting = (await s.log()).find((d) => d.status === 'pending');
    expect(waiting?.attempts).toBe(3);
    expect(new Set(waiting?.log.map((a) => a.error))).toEqual(new Set([NOT_PREPARED]));
    const endpoint = await t.app.inject({ method: 'GET', url: `${HOOKS}/${s.webhook.id}`, headers: key(s.apiKey) });
    expect(endpoint.json().data.webhook).toMatchObject({ status: 'active', failingSince: null });
    // Past its 3 days it is given up, saying so; the endpoint is still not blamed.
    await deliver();
    const [givenUp] = (await s.log()).filter((d) => d.id === waiting?.id);
    expect(givenUp?.status).toBe('failed');
    expect(givenUp?.log.at(-1)?.error).toBe(NOT_PREPARED_GIVEN_UP);
    const after = await t.app.inject({ method: 'GET', url: `${HOOKS}/${s.webhook.id}`, headers: key(s.apiKey) });
    expect(after.json().data.webhook).toMatchObject({ status: 'active', failingSince: null });
    // Redelivered once the entry is removed, the event goes out without its reference.
    await t.app.inject({ method: 'DELETE', url: `/api/v1/external/watchlist/${second}`, headers: key(s.apiKey) });
    const redeliver = await t.app.inject({
      method: 'POST',
      url: `${HOOKS}/${s.webhook.id}/deliveries/${givenUp?.id}/redeliver`,
      headers: key(s.apiKey),
    });
    expect(redeliver.statusCode, redeliver.body).toBeLessThan(300);
    await deliver();
    const sent = receiver.at('/sealed');
    expect(sent).toHaveLength(2);
    expect(JSON.parse(sent[1]?.body as string).data.watchlistEntry).toMatchObject({ id: second, ref: null });
  });

  it('a rotated secret signs beside the old one during the overlap, then alone; redelivery repeats the webhook-id', async () => {
    const s = await subscriber('/rotate');
    const rotated = await t.app.inject({
      method: 'POST',
      url: `${HOOKS}/${s.webhook.id}/rotate-secret`,
      headers: key(s.apiKey),
      payload: { overlapHours: 24 },
    });
    expect(rotated.statusCode).toBe(200);
    const fresh = rotated.json().data.webhook.secret as string;
    expect(fresh).not.toBe(s.webhook.secret);
    receiver.secrets.push(fresh);
    const freshIndex = receiver.secrets.length - 1;
    await s.raise();
    await deliver();
    expect(receiver.at('/rotate')[0]?.verifiedBy).toEqual([s.secretIndex, freshIndex]);
    clock.advanceDays(25 * hourDays);
    await s.raise();
    await deliver();
    expect(receiver.at('/rotate')[1]?.verifiedBy).toEqual([freshIndex]);

    const [latest] = await s.log();
    const again = await t.app.inject({
      method: 'POST',
      url: `${HOOKS}/${s.webhook.id}/deliveries/${latest?.id}/redeliver`,
      headers: key(s.apiKey),
    });
    expect(again.statusCode).toBe(202);
    await deliver();
    const got = receiver.at('/rotate');
    expect(got).toHaveLength(3);
    expect(got[2]?.id).toBe(got[1]?.id);
  });

  it("endpoints: listed without their secret; another company's is a 404; delete removes it", async () => {
    const s = await subscriber('/crud');
    const other = await createCompany(t);
    const list = await t.app.inject({ method: 'GET', url: HOOKS, headers: key(s.apiKey) });
    expect(list.json().data.webhooks).toHaveLength(1);
    expect(list.body).not.toContain('whsec_');
    for (const [method, url] of [
      ['GET', `${HOOKS}/${s.webhook.id}`],
      ['DELETE', `${HOOKS}/${s.webhook.id}`],
      ['GET', `${HOOKS}/${s.webhook.id}/deliveries`],
      ['GET', `${HOOKS}/00000000-0000-4000-8000-000000000001`],
    ] as const) {
      const res = await t.app.inject({ method, url, headers: key(other.apiKey) });
      expect(res.statusCode).toBe(404);
      expect(res.json().data.code).toBe('NOT_FOUND');
    }
    const badEvent = await t.app.inject({
      method: 'PATCH',
      url: `${HOOKS}/${s.webhook.id}`,
      headers: key(s.apiKey),
      payload: { events: ['report.searched'] },
    });
    expect(badEvent.statusCode).toBe(400);
    expect(badEvent.json().data.errors[0].field).toBe('events/0');
    expect((await t.app.inject({ method: 'DELETE', url: `${HOOKS}/${s.webhook.id}`, headers: key(s.apiKey) })).statusCode).toBe(
      200,
    );
    expect((await t.app.inject({ method: 'GET', url: `${HOOKS}/${s.webhook.id}`, headers: key(s.apiKey) })).statusCode).toBe(404);
  });

  it('two instances polling side by side deliver each event once (FOR UPDATE SKIP LOCKED)', async () => {
    const s = await subscriber('/pair');
    await s.raise(20);
    const siblings = [await buildSiblingApp(t, { webhookPollMs: 10 }), await buildSiblingApp(t, { webhookPollMs: 10 })];
    try {
      for (let i = 0; i < 600 && receiver.at('/pair').length < 20; i++) await new Promise((r) => setTimeout(r, 50));
    } finally {
      await Promise.all(siblings.map((app) => app.close()));
    }
    const ids = receiver.at('/pair').map((r) => r.id);
    expect(ids).toHaveLength(20);
    expect(new Set(ids).size).toBe(20);
    expect((await s.log()).every((d) => d.attempts === 1 && d.status === 'delivered')).toBe(true);
  });

  it('the address is checked again at delivery: an instance without REDFLAG_WEBHOOK_ALLOW_PRIVATE refuses to send', async () => {
    const s = await subscriber('/strict');
    await s.raise();
    const strict = await buildSiblingApp(t, { webhookAllowPrivate: false, webhookPollMs: 0 });
    try {
      await strict.jobs.runNow('webhooks.deliver');
    } finally {
      await strict.close();
    }
    expect(receiver.at('/strict')).toHaveLength(0);
    const [delivery] = await s.log();
    expect(delivery?.log[0]?.error).toBe('refused: must use https');
    expect(delivery?.status).toBe('pending');
  });
});
