import { describe, expect, it } from 'vitest';
import { expectNoneStored } from './helpers/at-rest.js';
import { digits, letters, nuban } from './helpers/identifiers.js';
import { createCompany, key } from './helpers/principals.js';
import { createReport } from './helpers/reports.js';
import { buildTestApp } from './helpers/test-app.js';
import { startReceiver } from './helpers/webhook-receiver.js';

describe('watchlists and webhooks at rest', () => {
  it("stores no watched value, no entry's own reference and no signing secret in clear, and logs none of them", async () => {
    const t = await buildTestApp({
      config: { logLevel: 'trace', webhookAllowPrivate: true, webhookPollMs: 0, jobTickSeconds: 0 },
    });
    const receiver = await startReceiver();
    try {
      const watcher = await createCompany(t);
      const reporter = await createCompany(t);
      const values = { bvn: `22${digits(9)}`, email: `${letters(12)}@example.com`, social_handle: letters(14) };
      // Members put account numbers in their own reference: sealed at rest, sent whole to the member (decision 0135).
      const ref = `customer account ${nuban('058')}`;
      const items = Object.entries(values).map(([label, value]) => ({ label, value, ref }));
      const hook = await t.app.inject({
        method: 'POST',
        url: '/api/v1/external/webhooks',
        headers: key(watcher.apiKey),
        payload: { url: receiver.url('/rest'), events: ['watchlist.match'] },
      });
      const first = hook.json().data.webhook;
      const rotated = await t.app.inject({
        method: 'POST',
        url: `/api/v1/external/webhooks/${first.id}/rotate-secret`,
        headers: key(watcher.apiKey),
        payload: {},
      });
      const second = rotated.json().data.webhook.secret as string;
      await t.app.inject({ method: 'POST', url: '/api/v1/external/watchlist', headers: key(watcher.apiKey), payload: { items } });
      await createReport(t, reporter.apiKey, { identifiers: items.map(({ label, value }) => ({ label, value })) });
      await t.app.jobs.runNow('webhooks.deliver');
      expect(receiver.received).toHaveLength(3);
      for (const r of receiver.received) {
        for (const value of Object.values(values)) expect(r.body).not.toContain(value);
        expect(JSON.parse(r.body).data.watchlistEntry.ref).toBe(ref);
      }
      const listed = await t.app.inject({ url: '/api/v1/external/watchlist', headers: key(watcher.apiKey) });
      expect(listed.json().data.data.map((entry: { ref: string }) => entry.ref)).toEqual([ref, ref, ref]);
      await t.close({ keepFiles: true });

      const needles = [...Object.values(values), ref.slice(-10), first.secret.slice(6), second.slice(6)];
      await expectNoneStored(t, needles, watcher.businessName);
    } finally {
      await receiver.close();
    }
  });
});
