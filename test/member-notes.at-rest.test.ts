import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { sealClearTexts } from '../src/crypto/seal-clear-texts.js';
import { embeddedPgdata } from '../src/db/embedded.js';
import { migrateToLatest } from '../src/db/migrate.js';
import * as migration0035 from '../src/db/migrations/2026_11_29_0035_member_notes_sealed.js';
import { expectNoneStored } from './helpers/at-rest.js';
import { digits, localPhone, nuban } from './helpers/identifiers.js';
import { createCompany, createOperator, key } from './helpers/principals.js';
import { createReport } from './helpers/reports.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';
import { startReceiver } from './helpers/webhook-receiver.js';

const WATCHLIST = '/api/v1/external/watchlist';
const SAFELIST = '/api/v1/admin/safelist';

async function post(t: TestApp, apiKey: string, url: string, payload: object) {
  const res = await t.app.inject({ method: 'POST', url, headers: key(apiKey), payload });
  expect(res.statusCode, `${url}: ${res.body}`).toBeLessThan(300);
  return res.json().data;
}

/**
 * A watchlist entry whose own reference names an account, matched by another member's report (a
 * webhook event waits), and a safelist entry whose reason names a BVN. Returns what each named.
 */
async function writeNotes(t: TestApp, receiverUrl: string) {
  const watcher = await createCompany(t);
  const reporter = await createCompany(t);
  const operator = await createOperator(t);
  const phone = localPhone();
  const named = { refNuban: nuban('058'), reasonBvn: `22${digits(9)}` };
  const ref = `Customer account ${named.refNuban}`;
  const reason = `Our own settlement line; BVN ${named.reasonBvn} is the bank's.`;
  await post(t, watcher.apiKey, '/api/v1/external/webhooks', { url: receiverUrl, events: ['watchlist.match'] });
  const [entry] = (await post(t, watcher.apiKey, WATCHLIST, { items: [{ label: 'phone', value: phone, ref }] })).results;
  await createReport(t, reporter.apiKey, { identifiers: [{ label: 'phone', value: phone }] });
  const { entry: safelisted } = await post(t, operator.apiKey, SAFELIST, { label: 'phone', value: localPhone(), reason });
  const read = async () => ({
    refs: (await t.app.inject({ url: WATCHLIST, headers: key(watcher.apiKey) }))
      .json()
      .data.data.map((e: { ref: string }) => e.ref),
    reasons: (await t.app.inject({ url: SAFELIST, headers: key(operator.apiKey) }))
      .json()
      .data.entries.map((e: { reason: string }) => e.reason),
  });
  return { watcher, named, ref, reason, entryId: entry.id as string, safelistId: safelisted.id as string, read };
}

/**
 * The bytes of these tables' files, read once the app is closed, then the data directory is removed
 * (the embedded engine; a server's files are not ours to read). Old row versions live there until
 * something overwrites them.
 */
async function tableFilesOnClose(t: TestApp, tables: string[]): Promise<Buffer> {
  const paths = [];
  for (const table of tables) {
    const { rows } = await sql<{ path: string }>`select pg_relation_filepath(${table}) as path`.execute(t.database.db);
    paths.push(path.join(embeddedPgdata(t.database.dataDir), rows[0]?.path as string));
  }
  await t.close({ keepFiles: true });
  try {
    return Buffer.concat(paths.map((file) => fs.readFileSync(file)));
  } finally {
    fs.rmSync(t.database.dataDir, { recursive: true, force: true });
  }
}

describe("a watchlist entry's own reference and a safelist reason, at rest (decision 0135)", () => {
  it('are stored sealed and read whole by their owners; the webhook carries the reference, null once the entry is gone', {
    timeout: 60_000,
  }, async () => {
    const t = await buildTestApp({
      config: { logLevel: 'trace', webhookAllowPrivate: true, webhookPollMs: 0, jobTickSeconds: 0 },
    });
    const receiver = await startReceiver();
    try {
      const { watcher, named, ref, reason, entryId, read } = await writeNotes(t, receiver.url('/notes'));
      expect(await read()).toEqual({ refs: [ref], reasons: [reason] });
      await t.app.jobs.runNow('webhooks.deliver');
      expect(receiver.received).toHaveLength(1);
      expect(JSON.parse(receiver.received[0]?.body as string).data.watchlistEntry).toEqual({ id: entryId, label: 'phone', ref });

      // A second match waits while the member removes the entry: it is sent without the reference.
      const phone = localPhone();
      const [second] = (await post(t, watcher.apiKey, WATCHLIST, { items: [{ label: 'phone', value: phone, ref }] })).results;
      await createReport(t, (await createCompany(t)).apiKey, { identifiers: [{ label: 'phone', value: phone }] });
      const removed = await t.app.inject({ method: 'DELETE', url: `${WATCHLIST}/${second.id}`, headers: key(watcher.apiKey) });
      expect(removed.statusCode, removed.body).toBeLessThan(300);
      await t.app.jobs.runNow('webhooks.deliver');
      expect(receiver.received).toHaveLength(2);
      expect(JSON.parse(receiver.received[1]?.body as string).data.watchlistEntry).toEqual({
        id: second.id,
        label: 'phone',
        ref: null,
      });
      await t.close({ keepFiles: true });

      await expectNoneStored(t, Object.values(named), watcher.businessName);
    } finally {
      await receiver.close();
    }
  });

  it('written in clear by an earlier version are sealed once at start-up and read the same, and leave the files', async () => {
    const t = await buildTestApp({ config: { webhookAllowPrivate: true, webhookPollMs: 0, jobTickSeconds: 0 } });
    let closed = false;
    try {
      const { ref, reason, entryId, safelistId, read } = await writeNotes(t, 'http://127.0.0.1:9/unused');
      const db = t.database.db;
      await sql`update watchlist_entries set ref = ${ref}, ref_token = null where id = ${entryId}`.execute(db);
      await sql`update safelist set reason = ${reason}, reason_token = null where id = ${safelistId}`.execute(db);
      expect(await read()).toEqual({ refs: [ref], reasons: [reason] });

      expect(await sealClearTexts(db, t.app.crypto.keyring)).toBe(2);
      const left = await sql<{ n: number }>`select (select count(*) from watchlist_entries where ref is not null)
        + (select count(*) from safelist where reason is not null) as n`.execute(db);
      expect(Number(left.rows[0]?.n)).toBe(0);
      expect(await read()).toEqual({ refs: [ref], reasons: [reason] });
      expect(await sealClearTexts(db, t.app.crypto.keyring)).toBe(0);
      // The tables the sweep changed are rewritten: the clear words' old row versions are gone from their files.
      if (!t.database.schema) {
        closed = true;
        const files = await tableFilesOnClose(t, ['watchlist_entries', 'safelist']);
        expect(files.includes(Buffer.from(ref))).toBe(false);
        expect(files.includes(Buffer.from(reason))).toBe(false);
      }
    } finally {
      if (!closed) await t.close();
    }
  });

  it('migration 0035 refuses to go down once a text is sealed; down and up give events back their reference and take it again, out of the files too', async () => {
    const t = await buildTestApp({ config: { webhookAllowPrivate: true, webhookPollMs: 0, jobTickSeconds: 0 } });
    let closed = false;
    try {
      const { ref, entryId } = await writeNotes(t, 'http://127.0.0.1:9/unused');
      const db = t.database.db;
      const eventEntry = async () =>
        (
          await sql<{ entry: object }>`select payload->'watchlistEntry' as entry from webhook_events
            where watchlist_entry_id = ${entryId}`.execute(db)
        ).rows[0]?.entry;
      expect(await eventEntry()).toEqual({ id: entryId, label: 'phone' });
      await expect(migration0035.down(db)).rejects.toThrow(/would lose them/);

      // As if no instance had sealed anything yet: the reference in clear, as an older version kept it.
      await sql`update watchlist_entries set ref = ${ref}, ref_token = null`.execute(db);
      await sql`update safelist set reason = 'An older reason kept in clear.', reason_token = null`.execute(db);
      await migration0035.down(db);
      expect(await eventEntry()).toEqual({ id: entryId, label: 'phone', ref });
      // Applied again as a start applies it: the references leave the events, and the events' old
      // row versions leave the table's file (vacuumed after the migration).
      await sql`delete from kysely_migration where name = '2026_11_29_0035_member_notes_sealed'`.execute(db);
      expect((await migrateToLatest(db)).applied).toEqual(['2026_11_29_0035_member_notes_sealed']);
      expect(await eventEntry()).toEqual({ id: entryId, label: 'phone' });
      if (!t.database.schema) {
        closed = true;
        expect((await tableFilesOnClose(t, ['webhook_events'])).includes(Buffer.from(ref))).toBe(false);
      }
    } finally {
      if (!closed) await t.close();
    }
  });
});
