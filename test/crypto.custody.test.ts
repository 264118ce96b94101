import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { loadCrypto } from '../src/crypto/load-crypto.js';
import { newRootKeyText, parseRootKey } from '../src/crypto/root-key.js';
import { buildTestApp } from './helpers/test-app.js';
import { createTestDatabase, type TestDatabase } from './helpers/test-database.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.close());

let dir: string;
beforeEach(async () => {
  await database.db.deleteFrom('encryption_keys').execute();
  await database.db.deleteFrom('crypto_keys').execute();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'redflag-custody-'));
  return () => fs.rmSync(dir, { recursive: true, force: true });
});

const dataDir = () => path.join(dir, 'data');
const keyFile = (where: string, mode = 0o600) => {
  fs.mkdirSync(path.dirname(where), { recursive: true });
  fs.writeFileSync(where, `${newRootKeyText()}\n`, { mode });
  fs.chmodSync(where, mode);
  return where;
};
const load = (config: { masterKeyFile?: string; production?: boolean }) =>
  loadCrypto({ db: database.db, config: { masterKey: undefined, dataDir: dataDir(), ...config }, engine: database.engine });

describe('root key custody', () => {
  it('reads the root key from REDFLAG_MASTER_KEY_FILE, on either engine, and makes no key file of its own', async () => {
    const file = keyFile(path.join(dir, 'secrets', 'redflag.key'));
    const first = await load({ masterKeyFile: file });
    const second = await load({ masterKeyFile: file });
    const ctx = { companyId: 'c', recordId: 'r', label: 'bvn' };
    expect(second.keyring.open(first.keyring.seal('x', ctx), ctx)).toBe('x');
    expect(fs.existsSync(path.join(dataDir(), 'master.key'))).toBe(false);
    expect(first.warnings).toEqual([]);
  });

  it('in production, warns when the key file sits inside the data directory or others can read it', async () => {
    const inside = keyFile(path.join(dataDir(), 'root.key'), 0o644);
    const crypto = await load({ masterKeyFile: inside, production: true });
    expect(crypto.warnings).toHaveLength(2);
    expect(crypto.warnings[0]).toMatch(
      /is inside the data directory .*a copy of the data directory then holds the key that opens it/,
    );
    expect(crypto.warnings[1]).toMatch(/is readable by group or others \(mode 644\): chmod 600 it/);
    // Not in production: the embedded default keeps working without noise.
    expect((await load({ masterKeyFile: inside })).warnings).toEqual([]);
  });

  it('in production, says nothing of a private key file outside the data directory', async () => {
    const outside = keyFile(path.join(dir, 'secrets', 'redflag.key'));
    expect((await load({ masterKeyFile: outside, production: true })).warnings).toEqual([]);
  });

  it('logs the warnings when the service starts', async () => {
    const file = keyFile(path.join(dir, 'secrets', 'shared.key'), 0o640);
    const t = await buildTestApp({ config: { masterKey: undefined, masterKeyFile: file, production: true } });
    try {
      const warnings = t.logLines.map((line) => JSON.parse(line)).filter((entry) => entry.level === 40);
      expect(warnings.map((entry) => entry.msg)).toEqual([expect.stringMatching(/readable by group or others \(mode 640\)/)]);
    } finally {
      await t.close();
    }
  });

  it('refuses a key file that does not exist', async () => {
    await expect(load({ masterKeyFile: path.join(dir, 'nope.key') })).rejects.toThrow(
      /REDFLAG_MASTER_KEY_FILE names .*nope\.key, which does not exist/,
    );
  });

  it('refuses root keys of low entropy: all one byte, a repeated pattern, few distinct bytes', () => {
    const text = (bytes: Buffer) => bytes.toString('base64');
    expect(() => parseRootKey(text(Buffer.alloc(32)), 'REDFLAG_MASTER_KEY')).toThrow(
      /REDFLAG_MASTER_KEY has too little entropy \(1 distinct byte values in 32\)/,
    );
    expect(() => parseRootKey(text(Buffer.from('abcd'.repeat(8))), 'K')).toThrow(/too little entropy/);
    expect(() => parseRootKey(text(Buffer.from('0123456789abcde0123456789abcde01')), 'K')).toThrow(/too little entropy/);
    expect(() => parseRootKey('c2hvcnQ=', 'K')).toThrow(/must be base64 of exactly 32 bytes/);
    expect(parseRootKey(newRootKeyText(), 'K')).toHaveLength(32);
  });

  it('takes REDFLAG_MASTER_KEY_FILE from the environment, resolved, and refuses it beside REDFLAG_MASTER_KEY', () => {
    expect(loadConfig({ REDFLAG_MASTER_KEY_FILE: 'keys/root.key', NODE_ENV: 'production' })).toMatchObject({
      masterKeyFile: path.resolve('keys/root.key'),
      production: true,
    });
    expect(() => loadConfig({ REDFLAG_MASTER_KEY_FILE: '/k', REDFLAG_MASTER_KEY: newRootKeyText() })).toThrow(ConfigError);
  });
});
