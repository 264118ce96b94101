import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProxiedApp, type ProxiedApp } from './helpers/proxied-database.js';
import { serverUrl } from './helpers/test-database.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The webhook and screening pollers, and the instance lease's renewal, through a database outage,
 * on the server engine behind a proxy of this file's own (port 4140): every attempt fails while the
 * link is refused.
 */
const LOOPS = ['webhook delivery', 'screening', 'instance lease renewal'];

describe.runIf(serverUrl)('the retrying loops during a database outage', () => {
  let t: ProxiedApp;

  beforeAll(async () => {
    t = await buildProxiedApp(4140, { webhookPollMs: 20, screeningPollMs: 20 });
  });
  afterAll(async () => {
    await t?.close();
  });

  const linesOf = (what: string) =>
    t.logLines.map((line) => JSON.parse(line) as { level: number; msg?: string }).filter((line) => line.msg?.startsWith(what));
  const recovered = () => LOOPS.every((what) => linesOf(`${what} runs again`).length > 0);

  it('say a run of failed attempts once, and again when it ends, not at every attempt', async () => {
    await t.proxy.setMode('refuse');
    await sleep(1_500);
    await t.proxy.setMode('pass');
    for (let waited = 0; waited < 5_000 && !recovered(); waited += 50) await sleep(50);

    for (const what of LOOPS) {
      const lines = linesOf(what);
      // Each attempt fails at once while the link is refused: every 20 ms (500 ms for the lease).
      expect(lines.map(({ level, msg }) => ({ level, msg }))).toEqual([
        { level: 40, msg: `${what} could not run; retrying` },
        { level: 30, msg: expect.stringMatching(new RegExp(`^${what} runs again after \\d+ failed attempts$`)) },
      ]);
      const { failedAttempts } = JSON.parse(t.logLines.find((line) => line.includes(`${what} runs again`)) ?? '{}');
      expect(failedAttempts).toBeGreaterThan(what === 'instance lease renewal' ? 1 : 5);
    }
  });
});
