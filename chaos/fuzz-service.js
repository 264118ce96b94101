// Starts the built service (dist/server.js) on a temporary data directory for `node chaos/fuzz.js`,
// with a company key and an operator key made by the CLI, as an operator would.
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const run = promisify(execFile);

/**
 * With DATABASE_URL set (the server engine) the service gets a schema and root key of its own, which
 * `stop()` drops; otherwise a temporary data directory for the embedded engine.
 */
export async function startService({ port, env = {} }) {
  if (!fs.existsSync(path.join(root, 'dist/server.js'))) throw new Error('dist/ is missing: run `npm run build` first');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'redflag-fuzz-'));
  const databaseUrl = process.env.DATABASE_URL || undefined;
  const schema = databaseUrl ? `fuzz_${randomBytes(5).toString('hex')}` : undefined;
  const serverEnv = databaseUrl
    ? { REDFLAG_DATABASE_SCHEMA: schema, REDFLAG_MASTER_KEY: randomBytes(32).toString('base64'), REDFLAG_WORKERS: '1' }
    : {};
  const serviceEnv = {
    ...process.env,
    LOG_LEVEL: 'fatal',
    ...env,
    ...serverEnv,
    REDFLAG_DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
  };
  const child = spawn(process.execPath, [path.join(root, 'dist/server.js')], {
    env: serviceEnv,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let output = '';
  child.stderr.on('data', (chunk) => {
    output = (output + chunk).slice(-4000);
  });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const baseUrl = `http://127.0.0.1:${port}`;
  const cleanUp = async () => {
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (schema) {
      const { default: pg } = await import('pg');
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      await client.query(`drop schema if exists ${schema} cascade`);
      await client.end();
    }
  };
  try {
    await waitUntilReady(baseUrl, child);
    const cli = async (...args) =>
      JSON.parse(
        (await run(process.execPath, [path.join(root, 'bin/redflag.js'), ...args, '--json'], { env: serviceEnv })).stdout,
      );
    const company = await cli('company', 'create', '--name', 'Fuzz MFB', '--rate-limit', '1000000');
    const operator = await cli('operator', 'create', '--name', 'Fuzz operator');
    return {
      baseUrl,
      engine: databaseUrl ? 'server' : 'embedded',
      apiKey: company.apiKey,
      operatorKey: operator.apiKey,
      async stop() {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
        await exited;
        clearTimeout(timer);
        await cleanUp();
      },
    };
  } catch (error) {
    child.kill('SIGKILL');
    await exited;
    await cleanUp();
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${output}`);
  }
}

async function waitUntilReady(baseUrl, child) {
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error('the service exited before it was ready');
    try {
      if ((await fetch(`${baseUrl}/readyz`)).ok) return;
    } catch {
      // Not listening yet.
    }
    await sleep(50);
  }
  throw new Error('the service was not ready within 180 s');
}
