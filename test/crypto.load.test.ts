import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CryptoConfigError } from '../src/crypto/errors.js';
import { loadCrypto } from '../src/crypto/load-crypto.js';
import { newRootKeyText } from '../src/crypto/root-key.js';
import { rotateKeys } from '../src/crypto/rotation.js';
import { buildTestApp } from './helpers/test-app.js';
import { createTestDatabase, type TestDatabase } from './helpers/test-database.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.close());

/** Each test starts from a database without keys and a key-file directory of its own. */
let dataDir: string;
beforeEach(async () => {
  await database.db.deleteFrom('encryption_keys').execute();
  await database.db.deleteFrom('crypto_keys').execute();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'redflag-keys-'));
});
afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }));

const ctx = { companyId: 'company', recordId: 'record', label: 'bvn' };
const load = (options: { masterKey?: string; engine?: 'embedded' | 'server' } = {}) =>
  loadCrypto({ db: database.db, config: { masterKey: options.masterKey, dataDir }, engine: options.engine ?? 'embedded' });

describe('loading the keys at start-up', () => {
  it('creates a key file (mode 0600) and the first key id on an empty embedded database, then reuses both', async () => {
    const first = await load();
    const file = path.join(dataDir, 'master.key');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64')).toHaveLength(32);
    expect(first.keyring.primaryKeyId).toBe('k1');
    const token = first.keyring.seal('22123456789', ctx);

    const contents = fs.readFileSync(file);
    const second = await load();
    expect(fs.readFileSync(file)).toEqual(contents);
    expect(second.keyring.open(token, ctx)).toBe('22123456789');
    expect(second.blindIndex('bvn', '22123456789')).toEqual(first.blindIndex('bvn', '22123456789'));
    const rows = await database.db.selectFrom('encryption_keys').selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ id: 'k1', is_primary: true, retired_at: null });
    expect(rows[0]?.reencrypted_at).toBeInstanceOf(Date);
  });

  it('keeps no key material in the database: ids, flags, times and a check value only', async () => {
    await load();
    const { rows } = await sql<{ column_name: string }>`select column_name from information_schema.columns
      where table_name = 'encryption_keys' and table_schema = current_schema() order by ordinal_position`.execute(database.db);
    expect(rows.map((r) => r.column_name)).toEqual([
      'id',
      'is_primary',
      'key_check',
      'created_at',
      'retired_at',
      'reencrypted_at',
    ]);
  });

  it('uses REDFLAG_MASTER_KEY when set, and writes no key file', async () => {
    const masterKey = newRootKeyText();
    const first = await load({ masterKey });
    expect(fs.existsSync(path.join(dataDir, 'master.key'))).toBe(false);
    const second = await load({ masterKey, engine: 'server' });
    expect(second.keyring.open(first.keyring.seal('x', ctx), ctx)).toBe('x');
  });

  it('stops with a clear message when REDFLAG_MASTER_KEY is not the key the database was encrypted with', async () => {
    await load({ masterKey: newRootKeyText() });
    await expect(load({ masterKey: newRootKeyText() })).rejects.toThrow(CryptoConfigError);
    await expect(load({ masterKey: newRootKeyText() })).rejects.toThrow(
      /^REDFLAG_MASTER_KEY does not match the key this database was encrypted with$/,
    );
  });

  it('stops with a clear message when the key file was replaced', async () => {
    await load();
    fs.writeFileSync(path.join(dataDir, 'master.key'), `${newRootKeyText()}\n`);
    await expect(load()).rejects.toThrow(/master\.key does not match the key this database was encrypted with/);
  });

  it('says the key file is missing, and does not make a new one, when the database already has keys', async () => {
    await load();
    fs.rmSync(path.join(dataDir, 'master.key'));
    await expect(load()).rejects.toThrow(
      /The key file .*master\.key is missing, but this database holds values encrypted under it/,
    );
    expect(fs.existsSync(path.join(dataDir, 'master.key'))).toBe(false);
  });

  it('requires REDFLAG_MASTER_KEY on the server engine, where instances must share the key', async () => {
    await expect(load({ engine: 'server' })).rejects.toThrow(
      /REDFLAG_MASTER_KEY or REDFLAG_MASTER_KEY_FILE must be set when DATABASE_URL is used/,
    );
    expect(await database.db.selectFrom('encryption_keys').selectAll().execute()).toEqual([]);
  });

  it('refuses a malformed REDFLAG_MASTER_KEY before touching anything', async () => {
    await expect(load({ masterKey: 'a2V5' })).rejects.toThrow(/REDFLAG_MASTER_KEY must be base64 of exactly 32 bytes/);
    expect(await database.db.selectFrom('encryption_keys').selectAll().execute()).toEqual([]);
  });

  it('lets two instances starting together on an empty database agree on one first key', async () => {
    const masterKey = newRootKeyText();
    const [a, b] = await Promise.all([load({ masterKey, engine: 'server' }), load({ masterKey, engine: 'server' })]);
    expect(a.keyring.primaryKeyId).toBe('k1');
    expect(b.keyring.open(a.keyring.seal('x', ctx), ctx)).toBe('x');
    expect(await database.db.selectFrom('encryption_keys').select('id').execute()).toEqual([{ id: 'k1' }]);
  });

  it('picks up a key that another process made primary when refreshed', async () => {
    const masterKey = newRootKeyText();
    const server = await load({ masterKey });
    const cli = await load({ masterKey });
    const before = server.keyring.seal('before', ctx);
    await rotateKeys({ db: database.db, crypto: cli, columns: [] });
    expect(server.keyring.primaryKeyId).toBe('k1');
    await server.refresh();
    expect(server.keyring.primaryKeyId).toBe('k2');
    expect(server.keyring.open(before, ctx)).toBe('before');
    expect(cli.keyring.open(server.keyring.seal('after', ctx), ctx)).toBe('after');
  });
});

describe('the app', () => {
  it('is built with the keyring and blind index, loaded by the test helper like the server does', async () => {
    const t = await buildTestApp();
    try {
      expect(t.app.crypto.keyring.primaryKeyId).toBe('k1');
      const token = t.app.crypto.keyring.seal('john@example.com', { ...ctx, label: 'email' });
      expect(t.app.crypto.keyring.open(token, { ...ctx, label: 'email' })).toBe('john@example.com');
      expect(t.app.crypto.blindIndex('email', 'john@example.com')).toHaveLength(32);
    } finally {
      await t.close();
    }
  });
});
