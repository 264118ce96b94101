import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, inject, it, vi } from 'vitest';
import { sealedColumns } from '../src/crypto/sealed-columns.js';
import { openDatabase } from '../src/db/database.js';
import { engine, serverSchemaName, serverUrl } from './helpers/test-database.js';

// Each test spawns real processes, one after another; on a loaded 2-core machine that takes a while.
vi.setConfig({ testTimeout: 120_000 });

const CLI = path.join(__dirname, '../bin/redflag.js');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'redflag-cli-'));
if (engine === 'embedded') fs.cpSync(inject('embeddedTemplateDir'), dataDir, { recursive: true });
const schema = serverUrl ? serverSchemaName() : undefined;
const masterKey = serverUrl ? randomBytes(32).toString('base64') : undefined;

afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

/** Runs the built `redflag` command against this file's database (embedded data dir or server schema). */
function redflag(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: {
        PATH: process.env.PATH ?? '',
        REDFLAG_DATA_DIR: dataDir,
        DATABASE_URL: serverUrl ?? '',
        REDFLAG_DATABASE_SCHEMA: schema ?? '',
        REDFLAG_MASTER_KEY: masterKey ?? '',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('npx redflag crypto', () => {
  it('rotate adds a new primary key each run and prints a summary', async () => {
    const first = await redflag(['crypto', 'rotate', '--settle-seconds', '0', '--json']);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({
      keyId: 'k2',
      previousKeyId: 'k1',
      resumed: false,
      reencrypted: 0,
      failed: 0,
    });
    if (engine === 'embedded') expect(fs.statSync(path.join(dataDir, 'master.key')).mode & 0o777).toBe(0o600);

    const second = await redflag(['crypto', 'rotate', '--settle-seconds', '0']);
    expect(second.code).toBe(0);
    const tables = new Set(sealedColumns.map((c) => c.table)).size;
    expect(second.stdout).toMatch(
      new RegExp(
        `^Rotated to key k3 \\(previous primary k2\\): 0 value\\(s\\) re-encrypted in ${sealedColumns.length} column\\(s\\) of ${tables} table\\(s\\)`,
      ),
    );
  });

  it('refuses a root key that is not the one the database was encrypted with', async () => {
    const result = await redflag(['crypto', 'rotate', '--settle-seconds', '0'], {
      REDFLAG_MASTER_KEY: randomBytes(32).toString('base64'),
    });
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe('redflag: REDFLAG_MASTER_KEY does not match the key this database was encrypted with');
  });

  it('new-master-key prints a fresh base64 root key of 32 bytes', async () => {
    const a = await redflag(['crypto', 'new-master-key']);
    const b = await redflag(['crypto', 'new-master-key']);
    expect(a.code).toBe(0);
    expect(Buffer.from(a.stdout.trim(), 'base64')).toHaveLength(32);
    expect(a.stdout).not.toBe(b.stdout);
  });

  it.runIf(engine === 'embedded')('asks for the server to be stopped when it holds the embedded data directory', async () => {
    const holder = await openDatabase({ databaseUrl: undefined, dataDir, poolSize: 1 });
    try {
      const result = await redflag(['crypto', 'rotate', '--settle-seconds', '0']);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        new RegExp(
          `^redflag: crypto rotate needs the embedded database to itself, and a Redflag process \\(pid ${process.pid}\\) is using`,
        ),
      );
      expect(result.stderr).toContain('Stop the server, run npx redflag crypto rotate, then start the server again.');
    } finally {
      await holder.close();
    }
  });
});

describe('npx redflag crypto rotate-root and reindex', () => {
  it('reindex moves every blind index to a new key version and deletes the old', async () => {
    const result = await redflag(['crypto', 'reindex', '--settle-seconds', '0', '--json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.stdout);
    expect(summary).toMatchObject({ resumed: false, failed: 0, unfinished: [] });
    expect(summary.labels).toContainEqual({ label: 'phone', from: 1, to: 2 });
    expect(summary.labels).toContainEqual({ label: 'account_nuban', from: 1, to: 2 });
    const bad = await redflag(['crypto', 'reindex', '--label', 'shoe_size']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--label must be among account, .*; got shoe_size/);
  });

  it('rotate-root re-wraps the stored keys under the new key file; the old root is then refused', async () => {
    const keyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'redflag-newkey-'));
    const newKeyFile = path.join(keyDir, 'new.key');
    const newKey = randomBytes(32).toString('base64');
    fs.writeFileSync(newKeyFile, `${newKey}\n`, { mode: 0o600 });
    const defaultFile = path.join(dataDir, 'master.key');
    const oldKey = masterKey ?? fs.readFileSync(defaultFile, 'utf8').trim();
    try {
      const result = await redflag(['crypto', 'rotate-root', '--new-key-file', newKeyFile, '--json']);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const summary = JSON.parse(result.stdout);
      expect(summary).toMatchObject({ resumed: false, skipped: 0 });
      expect(summary.rewrapped).toBeGreaterThan(10);
      // The embedded default with no key configured: the new key is where the next start reads it.
      if (engine === 'embedded') {
        expect(summary.replacedKeyFile).toBe(defaultFile);
        expect(fs.readFileSync(defaultFile, 'utf8').trim()).toBe(newKey);
        expect(fs.statSync(defaultFile).mode & 0o777).toBe(0o600);
      }
      const refused = await redflag(['crypto', 'rotate', '--settle-seconds', '0'], { REDFLAG_MASTER_KEY: oldKey });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(
        /^redflag: REDFLAG_MASTER_KEY holds a root key that was retired by "crypto rotate-root" on .*: start with the new root key/,
      );
      const accepted = await redflag(['crypto', 'rotate', '--settle-seconds', '0'], { REDFLAG_MASTER_KEY: newKey });
      expect(accepted.stderr).toBe('');
      expect(accepted.code).toBe(0);
    } finally {
      fs.rmSync(keyDir, { recursive: true, force: true });
    }
  });
});
