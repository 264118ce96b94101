import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, inject, it, vi } from 'vitest';

vi.setConfig({ testTimeout: 120_000 });

const root = path.resolve(__dirname, '..');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'redflag-npm-start-'));
fs.cpSync(inject('embeddedTemplateDir'), dataDir, { recursive: true });
let serverPid: number | undefined;

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

afterAll(() => {
  if (serverPid && alive(serverPid)) process.kill(serverPid, 'SIGKILL');
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('npm start', () => {
  it('passes SIGTERM on to the server, which stops and leaves the data directory free', async () => {
    const { DATABASE_URL: _d, REDIS_URL: _r, REDFLAG_MASTER_KEY: _k, ...env } = process.env;
    // --ignore-scripts skips prestart's build (npm test has built dist/); the start script itself runs.
    const npm = spawn('npm', ['start', '--ignore-scripts'], {
      cwd: root,
      env: { ...env, REDFLAG_DATA_DIR: dataDir, PORT: '4232', HOST: '127.0.0.1', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const npmExited = new Promise((resolve) => npm.on('exit', resolve));
    serverPid = await new Promise<number>((resolve, reject) => {
      let output = '';
      npm.stdout.on('data', (chunk) => {
        output += chunk;
        const line = output.split('\n').find((l) => l.includes('Redflag listening'));
        if (line) resolve((JSON.parse(line) as { pid: number }).pid);
      });
      npm.on('exit', (code) => reject(new Error(`npm start exited (${code}) before listening:\n${output}`)));
    });
    expect(serverPid).not.toBe(npm.pid);

    npm.kill('SIGTERM');
    await npmExited;
    // The server drains and closes; give it its shutdown grace and a little more.
    for (let waited = 0; alive(serverPid) && waited < 20_000; waited += 100) await sleep(100);
    expect(alive(serverPid)).toBe(false);
  });
});
