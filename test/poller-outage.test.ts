import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProxiedApp, type ProxiedApp } from './helpers/proxied-database.js';
import { serverUrl } from './helpers/test-database.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The webhook and screening pollers through a database outage, on the server engine behind a
 * proxy of this file's own (port 4140): every pass fails while the link is refused.
 */
describe.runIf(serverUrl)('the pollers during a database outage', () => {
  let t: ProxiedApp;

  beforeAll(async () => {
    t = await buildProxiedApp(4140, { webhookPollMs: 20, screeningPollMs: 20 });
  });
  afterAll(async () => {
    await t?.close();
  });

  const linesOf = (what: string) =>
    t.logLines.map((line) => JSON.parse(line) as { level: number; msg?: string }).filter((line) => line.msg?.startsWith(what));
  const recovered = () => ['webhook deliveries', 'screening'].every((what) => linesOf(`${what} runs again`).length > 0);

  it('say a run of failed passes once, and again when it ends, not at every pass', async () => {
    await t.proxy.setMode('refuse');
    await sleep(1_500);
    await t.proxy.setMode('pass');
    for (let waited = 0; waited < 5_000 && !recovered(); waited += 50) await sleep(50);

    for (const what of ['webhook deliveries', 'screening']) {
      const lines = linesOf(what);
      // Each pass fails at once while the link is refused: at every 20 ms that is dozens of them.
      expect(lines.map(({ level, msg }) => ({ level, msg }))).toEqual([
        { level: 40, msg: `${what} could not run; retrying` },
        { level: 30, msg: expect.stringMatching(new RegExp(`^${what} runs again after \\d+ failed passes$`)) },
      ]);
      const { failedPasses } = JSON.parse(t.logLines.find((line) => line.includes(`${what} runs again`)) ?? '{}');
      expect(failedPasses).toBeGreaterThan(5);
    }
  });
});
