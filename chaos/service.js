// The service under test for `npm run chaos`: the built dist/server.js as a child process, its
// PostgreSQL (server engine) and Redis reached through proxies of the runner's own, so links can be
// cut without touching the shared servers.
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import pg from 'pg';
import { FUZZ_SERVICE_ENV } from './fuzz.js';
import { startTcpProxy } from './tcp-proxy.js';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const run = promisify(execFile);

/**
 * @param {{ databaseUrl?: string, redisUrl?: string, ports: { http: number, pgProxy: number, redisProxy: number } }} options
 */
export async function prepareService({ databaseUrl, redisUrl, ports }) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'redflag-chaos-'));
  const schema = databaseUrl ? `chaos_${randomBytes(5).toString('hex')}` : undefined;
  const applicationName = `redflag-chaos-${randomBytes(4).toString('hex')}`;
  const pgProxy = databaseUrl ? await proxyTo(databaseUrl, ports.pgProxy, 5432) : undefined;
  const redisProxy = redisUrl ? await proxyTo(redisUrl, ports.redisProxy, 6379) : undefined;
  const env = {
    PATH: process.env.PATH,
    ...FUZZ_SERVICE_ENV,
    LOG_LEVEL: 'warn',
    REDFLAG_DATA_DIR: dataDir,
    PORT: String(ports.http),
    HOST: '127.0.0.1',
  };
  if (databaseUrl) {
    const proxied = new URL(databaseUrl);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(ports.pgProxy);
    proxied.searchParams.set('application_name', applicationName);
    Object.assign(env, {
      DATABASE_URL: proxied.toString(),
      REDFLAG_DATABASE_SCHEMA: schema,
      REDFLAG_MASTER_KEY: randomBytes(32).toString('base64'),
      REDFLAG_WORKERS: '1',
    });
  }
  if (redisUrl)
    Object.assign(env, { REDIS_URL: `redis://127.0.0.1:${ports.redisProxy}`, REDFLAG_REDIS_PREFIX: `${applicationName}:` });
  const baseUrl = `http://127.0.0.1:${ports.http}`;
  let child;
  let exits = 0;

  const service = {
    engine: databaseUrl ? 'server' : 'embedded',
    baseUrl,
    env,
    pgProxy,
    redisProxy,
    get child() {
      return child;
    },
    /** How many times the process ended without being asked (not SIGKILL/SIGTERM from the runner). */
    get unexpectedExits() {
      return exits;
    },
    /** Starts the service (optionally under a wrapper command) and resolves with ms until /readyz said 200. */
    async start({ wrapper = [] } = {}) {
      const startedAt = performance.now();
      const [command, ...args] = [...wrapper, process.execPath, path.join(root, 'dist/server.js')];
      const logFile = fs.openSync(path.join(dataDir, 'service.log'), 'a');
      const spawned = spawn(command, args, { env, stdio: ['ignore', logFile, 'pipe'] });
      fs.closeSync(logFile);
      let output = '';
      spawned.stderr.on('data', (chunk) => {
        output = (output + chunk).slice(-2000);
      });
      spawned.expected = false;
      spawned.exited = new Promise((resolve) =>
        spawned.on('exit', (code, signal) => {
          if (!spawned.expected) exits += 1;
          resolve({ code, signal });
        }),
      );
      child = spawned;
      const deadline = Date.now() + 120_000;
      while (Date.now() < deadline) {
        if (spawned.exitCode !== null || spawned.signalCode !== null) throw new Error(`the service exited at start: ${output}`);
        if ((await status(`${baseUrl}/readyz`)) === 200) return performance.now() - startedAt;
        await sleep(20);
      }
      throw new Error(`the service was not ready within 120 s: ${output}`);
    },
    /** SIGKILL (kill -9) to the service process, or to `pid` (the process inside a wrapper). */
    async kill9(pid = child.pid) {
      child.expected = true;
      process.kill(pid, 'SIGKILL');
      await child.exited;
    },
    async sigterm() {
      child.expected = true;
      child.kill('SIGTERM');
      return child.exited;
    },
    /** The service's last log lines at error level or above (pino level ≥ 50), for the runner to show. */
    errorLines() {
      const file = path.join(dataDir, 'service.log');
      if (!fs.existsSync(file)) return [];
      return fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => /"level":(50|60)/.test(line))
        .slice(-5);
    },
    alive: () => child !== undefined && child.exitCode === null && child.signalCode === null,
    /** A company key and an operator key, made by the CLI as an operator would. */
    async keys() {
      const cli = async (...args) =>
        JSON.parse((await run(process.execPath, [path.join(root, 'bin/redflag.js'), ...args, '--json'], { env })).stdout);
      const company = await cli('company', 'create', '--name', `Chaos MFB ${applicationName}`, '--rate-limit', '1000000');
      const operator = await cli('operator', 'create', '--name', `Chaos operator ${applicationName}`);
      return { apiKey: company.apiKey, operatorKey: operator.apiKey };
    },
    /** pg_terminate_backend on the service's own connections only (by application_name). */
    async terminateBackends() {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        await client.query('select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1', [
          applicationName,
        ]);
      } finally {
        await client.end();
      }
    },
    async cleanUp() {
      if (service.alive()) await service.kill9();
      await pgProxy?.close();
      await redisProxy?.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
      if (schema) {
        const client = new pg.Client({ connectionString: databaseUrl });
        await client.connect();
        await client.query(`drop schema if exists ${schema} cascade`);
        await client.end();
      }
    },
  };
  return service;
}

async function proxyTo(url, port, defaultPort) {
  const target = new URL(url);
  return startTcpProxy({ port, targetHost: target.hostname || '127.0.0.1', targetPort: Number(target.port || defaultPort) });
}

export async function status(url) {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(5_000) })).status;
  } catch {
    return 0;
  }
}
