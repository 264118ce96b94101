import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProxyMode } from '../chaos/tcp-proxy.js';
import { createCompany, key } from './helpers/principals.js';
import { buildProxiedApp, type ProxiedApp } from './helpers/proxied-database.js';
import { reportBody } from './helpers/reports.js';
import { serverUrl } from './helpers/test-database.js';

/**
 * Database faults on the server engine, through a proxy of this file's own (port 4110): the shared
 * PostgreSQL is never stopped. Any unhandled 'error' event or rejection here fails the run, as it
 * would have ended the service's process.
 */
describe.runIf(serverUrl)('a database fault', () => {
  let t: ProxiedApp;
  let apiKey: string;

  beforeAll(async () => {
    t = await buildProxiedApp(4110);
    apiKey = (await createCompany(t)).apiKey;
  });
  afterAll(async () => {
    await t?.close();
  });

  const create = () =>
    t.app.inject({ method: 'POST', url: '/api/v1/external/reports', headers: key(apiKey), payload: reportBody() });
  const ready = () => t.app.inject({ method: 'GET', url: '/readyz' });

  function expectUnavailable(res: Awaited<ReturnType<typeof create>>) {
    expect(res.statusCode, res.body).toBe(503);
    expect(res.json()).toMatchObject({ success: false, data: { code: 'UNAVAILABLE', requestId: expect.any(String) } });
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  }

  it.each<ProxyMode>(['refuse', 'reset', 'blackhole'])(
    'answers 503 UNAVAILABLE with Retry-After while the link is %s, and the first request after it is back succeeds',
    async (mode) => {
      expect((await create()).statusCode).toBe(201);
      await t.proxy.setMode(mode);
      expectUnavailable(await create());
      expectUnavailable(await ready());
      // /readyz failing again and again is one warning, never an error line per probe.
      await ready();
      expect(t.logLines.filter((line) => line.includes('"level":50'))).toEqual([]);
      await t.proxy.setMode('pass');
      expect((await create()).statusCode).toBe(201);
      expect((await ready()).statusCode).toBe(200);
    },
  );

  it('answers every waiting search 503 within the connection wait when the link goes silent, not when sockets are cut', async () => {
    const phone = `0803${String(Date.now()).slice(-7)}`;
    // A key of its own, checked just now: its cached check (4 s) outlasts the burst's arrival.
    const searcher = (await createCompany(t)).apiKey;
    const searchOnce = () =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/external/reports/search',
        headers: key(searcher),
        payload: { identifier: 'phone', value: phone },
      });
    expect((await searchOnce()).statusCode).toBe(200);
    const logged = t.logLines.length;
    await t.proxy.setMode('blackhole');
    const started = performance.now();
    // A few statements hang on the silent link; the other searches wait for a slot and give up after
    // the connection wait (0.5 s here), each logged as such, instead of queueing behind them in
    // rounds of timeouts. Without the wait limit not one search fails that way.
    const answers = await Promise.all(Array.from({ length: 300 }, searchOnce));
    const elapsed = performance.now() - started;
    for (const res of answers) expectUnavailable(res);
    const waitedOut = t.logLines.slice(logged).filter((line) => line.includes('ms for a database connection')).length;
    // Slack below ~297: the statements sent before the slots filled fail by their own timeouts.
    expect(waitedOut).toBeGreaterThan(200);
    expect(elapsed).toBeLessThan(10_000);
    await t.proxy.setMode('pass');
    expect((await searchOnce()).statusCode).toBe(200);
  });

  it('keeps serving while its backends are terminated again and again', async () => {
    const statuses: number[] = [];
    for (let round = 0; round < 15; round++) {
      const burst = Array.from({ length: 6 }, () => create());
      await t.terminateBackends();
      for (const res of await Promise.all(burst)) {
        statuses.push(res.statusCode);
        if (res.statusCode !== 201) expectUnavailable(res);
      }
    }
    expect(statuses.every((s) => s === 201 || s === 503)).toBe(true);
    expect((await create()).statusCode).toBe(201);
  });
});
