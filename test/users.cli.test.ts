import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, inject, it, vi } from 'vitest';
import { serverUrl } from './helpers/test-database.js';

vi.setConfig({ testTimeout: 120_000 });

const root = path.resolve(__dirname, '..');
const bin = path.join(root, 'bin/redflag.js');
const serverJs = path.join(root, 'dist/server.js');
const PORT = 4431;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'redflag-users-cli-'));
const schema = serverUrl ? `test_users_cli_${randomBytes(5).toString('hex')}` : undefined;
const masterKey = serverUrl ? randomBytes(32).toString('base64') : undefined;
if (!serverUrl) fs.cpSync(inject('embeddedTemplateDir'), dataDir, { recursive: true });

function environment(): NodeJS.ProcessEnv {
  const { DATABASE_URL: _d, REDIS_URL: _r, REDFLAG_DATABASE_SCHEMA: _s, REDFLAG_MASTER_KEY: _k, ...rest } = process.env;
  return {
    ...rest,
    REDFLAG_DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    PORT: String(PORT),
    HOST: '127.0.0.1',
    ...(serverUrl ? { DATABASE_URL: serverUrl, REDFLAG_DATABASE_SCHEMA: schema, REDFLAG_MASTER_KEY: masterKey } : {}),
  };
}

function redflag(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { env: environment(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => {
      stdout += c;
    });
    child.stderr.on('data', (c) => {
      stderr += c;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function json<T = Record<string, unknown>>(...args: string[]): Promise<T> {
  const r = await redflag(...args, '--json');
  if (r.code !== 0) throw new Error(`redflag ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

let server: ChildProcess | undefined;
function startServer(): Promise<void> {
  const child = spawn(process.execPath, [serverJs], { env: environment(), stdio: ['ignore', 'pipe', 'pipe'] });
  server = child;
  let output = '';
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk) => {
      output += chunk;
      if (output.includes('"Redflag listening')) resolve();
    });
    child.stderr?.on('data', (chunk) => {
      output += chunk;
    });
    child.on('exit', (code) => reject(new Error(`server exited ${code}: ${output}`)));
  });
}

afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server?.on('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
  if (serverUrl && schema) {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    await client.query(`drop schema if exists "${schema}" cascade`);
    await client.end();
  }
});

const post = (url: string, body: object) =>
  fetch(`http://127.0.0.1:${PORT}${url}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('redflag user', () => {
  it('invites the first admin from the command line; the invite URL works over HTTP; list and suspend go through the server', async () => {
    const { companyId } = await json<{ companyId: string }>('company', 'create', '--name', 'People MFB');
    const email = `first.admin.${process.pid}@bank.example`;
    const invited = await json<Record<string, string>>(
      'user',
      'invite',
      '--company',
      companyId,
      '--email',
      email,
      '--role',
      'admin',
    );
    expect(Object.keys(invited).sort()).toEqual(['expiresAt', 'inviteUrl', 'userId']);
    expect(invited.inviteUrl).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${PORT}/invitations/accept\\?token=`));

    await startServer();
    const token = new URL(invited.inviteUrl as string).searchParams.get('token');
    const accepted = await post('/api/v1/auth/invitations/accept', {
      token,
      password: 'a long and unusual passphrase',
      name: 'Ngozi',
    });
    expect(accepted.status).toBe(200);
    const signedIn = await post('/api/v1/auth/sign-in', { email, password: 'a long and unusual passphrase' });
    expect(signedIn.status).toBe(200);
    expect(((await signedIn.json()) as { data: { totpEnrolmentRequired: boolean } }).data.totpEnrolmentRequired).toBe(true);

    const listed = await json<{ users: Array<{ id: string; status: string }> }>('user', 'list', '--company', companyId);
    expect(listed.users).toEqual([expect.objectContaining({ id: invited.userId, status: 'active' })]);
    await json('user', 'suspend', invited.userId as string);
    expect((await post('/api/v1/auth/sign-in', { email, password: 'a long and unusual passphrase' })).status).toBe(403);
  });

  it('needs exactly one of --company and --operator (usage error, exit 2)', async () => {
    const r = await redflag('user', 'invite', '--email', 'x@bank.example', '--role', 'admin');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--company/);
  });
});
