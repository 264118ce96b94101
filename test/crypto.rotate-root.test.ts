import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCrypto } from '../src/crypto/load-crypto.js';
import { newRootKeyText, parseRootKey } from '../src/crypto/root-key.js';
import { rotateRoot } from '../src/crypto/root-rotation.js';
import { rotateKeys } from '../src/crypto/rotation.js';
import { sealedColumns } from '../src/crypto/sealed-columns.js';
import { createCompany, createOperator, key } from './helpers/principals.js';
import { ADMIN, filePublicReport, uniquePhone } from './helpers/public-reports.js';
import { reportBody } from './helpers/reports.js';
import { buildSiblingApp, buildTestApp, type TestApp } from './helpers/test-app.js';

const SUBMISSIONS = '/api/v1/external/reports/submissions';
const oldRoot = newRootKeyText();
const newRoot = newRootKeyText();

let t: TestApp;
let company: Awaited<ReturnType<typeof createCompany>>;
let operator: Awaited<ReturnType<typeof createOperator>>;
const made = { published: '', draft: '', publicReport: '', idempotent: '' };
const idempotentBody = reportBody({ identifiers: [{ label: 'bvn', value: '22198765432' }] });

beforeAll(async () => {
  t = await buildTestApp({ config: { masterKey: oldRoot } });
  company = await createCompany(t);
  operator = await createOperator(t);
  const post = (payload: object, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url: '/api/v1/external/reports', headers: { ...key(company.apiKey), ...headers }, payload });
  made.published = (await post(reportBody())).json().data.id;
  made.draft = (await post(reportBody({ status: 'draft' }))).json().data.id;
  const first = await post(idempotentBody, { 'idempotency-key': 'rotate-root-probe' });
  expect(first.statusCode).toBe(201);
  made.idempotent = first.body;
  made.publicReport = await filePublicReport(t, uniquePhone());
}, 60_000);
afterAll(() => t.close());

/** Everything sealed, read back through HTTP by an app instance: reports, a draft, the idempotent replay, contact details. */
async function expectEverythingDecodes(app: TestApp['app']) {
  for (const id of [made.published, made.draft]) {
    const res = await app.inject({ method: 'GET', url: `${SUBMISSIONS}/${id}/decode`, headers: key(company.apiKey) });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.report.identifiers.map((i: { value: string }) => i.value)).toEqual([
      '+2348031234567',
      'mule.account@example.com',
    ]);
  }
  const replay = await app.inject({
    method: 'POST',
    url: '/api/v1/external/reports',
    headers: { ...key(company.apiKey), 'idempotency-key': 'rotate-root-probe' },
    payload: idempotentBody,
  });
  expect(replay.statusCode).toBe(201);
  expect(replay.body).toBe(made.idempotent);
  const contact = await app.inject({ method: 'GET', url: `${ADMIN}/${made.publicReport}`, headers: key(operator.apiKey) });
  expect(contact.statusCode, contact.body).toBe(200);
  expect(contact.json().data.report.victim.email).toBe('jane.doe@example.com');
  expect(contact.json().data.report.guestInfo.email).toBe('ola@example.org');
}

const load = (masterKey: string) =>
  loadCrypto({ db: t.database.db, config: { masterKey, dataDir: t.config.dataDir }, engine: t.database.engine });

describe('crypto rotate-root', () => {
  it('re-wraps the stored keys in batches, survives an interruption, and then refuses the old root', async () => {
    await expectEverythingDecodes(t.app);
    const before = await t.database.db.selectFrom('report_identifiers').select(['id', 'value_token', 'blind_index']).execute();

    // An injected stop after the first batch: some rows are under the new root, some under the old.
    let batches = 0;
    await expect(
      rotateRoot({
        db: t.database.db,
        currentRoot: parseRootKey(oldRoot, 'old'),
        newRoot: parseRootKey(newRoot, 'new'),
        batchSize: 4,
        onProgress: () => {
          if (++batches === 1) throw new Error('stopped on purpose');
        },
      }),
    ).rejects.toThrow('stopped on purpose');
    const mixed = await t.database.db.selectFrom('crypto_keys').select(['root_id']).where('kind', '!=', 'root').execute();
    expect(new Set(mixed.map((r) => r.root_id.toString('hex'))).size).toBe(2);
    // Half-way, an instance holding either root starts and reads everything.
    await expect(load(oldRoot)).resolves.toBeDefined();
    await expect(load(newRoot)).resolves.toBeDefined();

    const progress: number[] = [];
    const summary = await rotateRoot({
      db: t.database.db,
      currentRoot: parseRootKey(oldRoot, 'old'),
      newRoot: parseRootKey(newRoot, 'new'),
      batchSize: 4,
      onProgress: (done) => progress.push(done),
    });
    expect(summary.resumed).toBe(true);
    expect(summary.rewrapped).toBeGreaterThan(4);
    expect(progress.length).toBeGreaterThan(1);
    const rows = await t.database.db.selectFrom('crypto_keys').selectAll().execute();
    expect(rows.filter((r) => r.kind === 'root')).toEqual([]);
    expect(rows.filter((r) => r.kind === 'retired-root')).toHaveLength(1);

    // No sealed value or index moved: only the few key rows were written.
    const after = await t.database.db.selectFrom('report_identifiers').select(['id', 'value_token', 'blind_index']).execute();
    expect(after).toEqual(before);

    await expect(load(oldRoot)).rejects.toThrow(
      /holds a root key that was retired by "crypto rotate-root" on .*: start with the new root key/,
    );
    await expect(load(newRootKeyText())).rejects.toThrow(
      /^REDFLAG_MASTER_KEY does not match the key this database was encrypted with$/,
    );

    // The running instance keeps serving with the keys it holds; a new one starts with the new root.
    await expectEverythingDecodes(t.app);
    const restarted = await buildSiblingApp(t, { masterKey: newRoot });
    try {
      await expectEverythingDecodes(restarted);
    } finally {
      await restarted.close();
    }
  });

  it('is refused when the new key is the root already in use', async () => {
    await expect(
      rotateRoot({ db: t.database.db, currentRoot: parseRootKey(newRoot, 'x'), newRoot: parseRootKey(newRoot, 'x') }),
    ).rejects.toThrow('The new key is the root key already in use');
  });
});

describe('a running instance after rotate-root', () => {
  it('re-reads REDFLAG_MASTER_KEY_FILE when it meets a key stored under the new root', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'redflag-keyfile-'));
    const keyFile = path.join(dir, 'root.key');
    fs.writeFileSync(keyFile, `${newRoot}\n`, { mode: 0o600 });
    const live = await buildSiblingApp(t, { masterKey: undefined, masterKeyFile: keyFile });
    const liveCrypto = live.crypto;
    try {
      const newest = newRootKeyText();
      await rotateRoot({ db: t.database.db, currentRoot: parseRootKey(newRoot, 'a'), newRoot: parseRootKey(newest, 'b') });
      // The operator replaces the secret's contents; then a new data key is made under the new root.
      fs.writeFileSync(keyFile, `${newest}\n`);
      const cli = await load(newest);
      const rotation = await rotateKeys({ db: t.database.db, crypto: cli, columns: sealedColumns });
      expect(rotation.failures).toEqual([]);
      await liveCrypto.refresh();
      expect(liveCrypto.keyring.primaryKeyId).toBe(rotation.keyId);
      expect(
        liveCrypto.keyring.open(cli.keyring.seal('x', { companyId: 'c', recordId: 'r', label: 'l' }), {
          companyId: 'c',
          recordId: 'r',
          label: 'l',
        }),
      ).toBe('x');
      await expectEverythingDecodes(live);
    } finally {
      await live.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
