import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTcpProxy, type TcpProxy } from '../chaos/tcp-proxy.js';
import { newRootKeyText } from '../src/crypto/root-key.js';
import { serverSchemaName, serverUrl } from './helpers/test-database.js';

const serverJs = path.join(__dirname, '..', 'dist/server.js');
const PROXY_PORT = 4130;
const HTTP_PORT = 4131;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function readyStatus(): Promise<number> {
  try {
    return (await fetch(`http://127.0.0.1:${HTTP_PORT}/readyz`, { signal: AbortSignal.timeout(2_000) })).status;
  } catch {
    return 0;
  }
}

async function waitUntilReady(attempts: number): Promise<boolean> {
  for (let i = 0; i < attempts; i++) {
    if ((await readyStatus()) === 200) return true;
    await sleep(250);
  }
  return false;
}

const workersOf = (pid: number) =>
  execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
    .map(Number);

/** `node dist/server.js` with two workers, its database behind a proxy of this file's own. */
describe.runIf(serverUrl)('the cluster primary', () => {
  let proxy: TcpProxy;
  let primary: ChildProcess;
  let exited: Promise<number | null>;

  beforeAll(async () => {
    const target = new URL(serverUrl as string);
    proxy = await startTcpProxy({ port: PROXY_PORT, targetPort: Number(target.port || 5432), targetHost: target.hostname });
    const proxied = new URL(serverUrl as string);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(PROXY_PORT);
    primary = spawn(process.execPath, [serverJs], {
      env: {
        PATH: process.env.PATH,
        DATABASE_URL: proxied.toString(),
        REDFLAG_DATABASE_SCHEMA: serverSchemaName(),
        REDFLAG_MASTER_KEY: newRootKeyText(),
        REDFLAG_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'redflag-cluster-')),
        REDFLAG_WORKERS: '2',
        REDFLAG_DB_CONNECT_TIMEOUT_MS: '500',
        PORT: String(HTTP_PORT),
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    exited = new Promise((resolve) => primary.on('exit', (code) => resolve(code)));
    // A cold start of a primary and two workers takes a while on a loaded 2-core machine.
    expect(await waitUntilReady(480)).toBe(true);
  }, 240_000);
  afterAll(async () => {
    if (primary.exitCode === null) primary.kill('SIGKILL');
    await proxy?.close();
  });

  it('restarts workers that cannot start while the database is away, and serves again when it is back', async () => {
    // /readyz answers as soon as one worker listens; the second may still be starting.
    let first = workersOf(primary.pid as number);
    for (let i = 0; i < 240 && first.length < 2; i++) {
      await sleep(250);
      first = workersOf(primary.pid as number);
    }
    expect(first).toHaveLength(2);
    await proxy.setMode('refuse');
    for (const pid of first) process.kill(pid, 'SIGKILL');
    // Replacements fail to reach the database, again and again; the primary must outlive them.
    await sleep(3_000);
    expect(primary.exitCode).toBeNull();
    await proxy.setMode('pass');
    expect(await waitUntilReady(480)).toBe(true);
    let replacements = workersOf(primary.pid as number);
    for (let i = 0; i < 240 && replacements.length < 2; i++) {
      await sleep(250);
      replacements = workersOf(primary.pid as number);
    }
    expect(replacements).toHaveLength(2);
    expect(replacements.some((pid) => first.includes(pid))).toBe(false);
  }, 240_000);

  it('drains and exits 0 on SIGTERM', async () => {
    primary.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 60_000);
});
