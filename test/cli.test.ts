import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { engine, serverUrl } from './helpers/test-database.js';

// Each test spawns real processes, one after another; on a loaded 2-core machine that takes a while.
vi.setConfig({ testTimeout: 120_000 });

/** The built command and server, as a user runs them (`npm test` builds first). */
const root = path.resolve(__dirname, '..');
const bin = path.join(root, 'bin/redflag.js');
const serverJs = path.join(root, 'dist/server.js');

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'redflag-cli-'));
const schema = serverUrl ? `test_cli_${randomBytes(5).toString('hex')}` : undefined;
/** On a server every process sharing the schema needs the same root key; embedded uses its key file. */
const masterKey = serverUrl ? randomBytes(32).toString('base64') : undefined;
if (!serverUrl) fs.cpSync(inject('embeddedTemplateDir'), dataDir, { recursive: true });

/** The environment both processes share: the same data directory (or server schema), nothing else inherited that matters. */
function environment(): NodeJS.ProcessEnv {
  const { DATABASE_URL: _d, REDIS_URL: _r, REDFLAG_DATABASE_SCHEMA: _s, REDFLAG_MASTER_KEY: _k, ...rest } = process.env;
  return {
    ...rest,
    REDFLAG_DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    ...(serverUrl ? { DATABASE_URL: serverUrl, REDFLAG_DATABASE_SCHEMA: schema, REDFLAG_MASTER_KEY: masterKey } : {}),
  };
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function redflag(...args: string[]): Promise<Run> {
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

async function json<T = Record<string, unknown>>(run: Promise<Run>): Promise<T> {
  const r = await run;
  if (r.code !== 0) throw new Error(`redflag exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

let server: ChildProcess | undefined;
let baseUrl = '';
let serverOutput = '';

/** Starts `node dist/server.js` on a free port; resolves with its port once it listens. */
function startServer(): Promise<number> {
  const child = spawn(process.execPath, [serverJs], {
    env: { ...environment(), PORT: '0', HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server = child;
  return new Promise((resolve, reject) => {
    let buffered = '';
    child.stdout?.on('data', (chunk) => {
      serverOutput += chunk;
      buffered += chunk;
      for (const line of buffered.split('\n')) {
        if (line.includes('"Redflag listening')) resolve((JSON.parse(line) as { port: number }).port);
      }
    });
    child.stderr?.on('data', (chunk) => {
      serverOutput += chunk;
    });
    child.on('exit', (code) => reject(new Error(`server exited ${code}: ${serverOutput}`)));
  });
}

function stopServer(): Promise<void> {
  const child = server;
  server = undefined;
  if (!child || child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.on('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

const call = (apiKey: string, url: string) => fetch(`${baseUrl}${url}`, { headers: { 'x-api-key': apiKey } });
// biome-ignore lint/suspicious/noExplicitAny: a response body read in a test, checked field by field
const body = async (res: Response): Promise<any> => res.json();

/** On the embedded engine a command goes through the server and takes effect at once; otherwise within 5 s. */
async function eventually(apiKey: string, url: string, status: number): Promise<number> {
  const started = Date.now();
  let last = 0;
  while (Date.now() - started < 6_000) {
    last = (await call(apiKey, url)).status;
    if (last === status) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return last;
}

let created: { companyId: string; keyId: string; apiKey: string } | undefined;

beforeAll(async () => {
  const listening = startServer();
  // Straight away, while the server may still be opening the database: the command waits for it, no lock error.
  created = await json(redflag('company', 'create', '--name', 'Early Bird MFB', '--json'));
  baseUrl = `http://127.0.0.1:${await listening}`;
}, 60_000);

afterAll(async () => {
  await stopServer();
  fs.rmSync(dataDir, { recursive: true, force: true });
  if (serverUrl && schema) {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    await client.query(`drop schema if exists "${schema}" cascade`);
    await client.end();
  }
});

describe('the redflag command while the server runs on the same data', () => {
  it('created a company while the server was starting, and its key works over HTTP', async () => {
    expect(created).toMatchObject({ companyId: expect.any(String), apiKey: expect.stringMatching(/^rf_/) });
    const res = await call(created?.apiKey as string, '/api/v1/auth/whoami');
    expect(res.status).toBe(200);
    expect((await body(res)).data.company).toEqual({ id: created?.companyId, businessName: 'Early Bird MFB' });
  });

  it('creates a company and a key that then work over HTTP', async () => {
    const company = await json<{ companyId: string; apiKey: string }>(
      redflag('company', 'create', '--name', 'Acme MFB', '--rate-limit', '900', '--json'),
    );
    const issued = await json<{ keyId: string; apiKey: string }>(
      redflag('key', 'issue', '--company', company.companyId, '--json'),
    );
    for (const apiKey of [company.apiKey, issued.apiKey]) {
      const res = await call(apiKey, '/api/v1/external/keys');
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBe('900');
      const ids = (await body(res)).data.keys.map((k: { id: string }) => k.id);
      expect(ids).toContain(issued.keyId);
    }
    const listed = await json<{ keys: Array<{ id: string; prefix: string }> }>(
      redflag('key', 'list', '--company', company.companyId, '--json'),
    );
    expect(listed.keys.map((k) => k.prefix).sort()).toEqual([company.apiKey.slice(0, 10), issued.apiKey.slice(0, 10)].sort());
    expect(JSON.stringify(listed)).not.toContain(issued.apiKey);
    const text = await redflag('key', 'list', '--company', company.companyId);
    expect(text.stdout).toContain('PREFIX');
    expect(text.stdout).toContain(issued.apiKey.slice(0, 10));
    const companies = await redflag('company', 'list');
    expect(companies.stdout).toContain('Acme MFB');
  });

  it('prints the new key readably without --json', async () => {
    const r = await redflag('company', 'create', '--name', 'Readable Ltd');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^Created company "Readable Ltd" \([0-9a-f-]{36}\)\.\nAPI key \(shown only now; store it safely\):\n {2}rf_[0-9A-Za-z]{36}\n$/,
    );
  });

  it('revokes, rotates, suspends and activates with effect on the running server', async () => {
    const company = await json<{ companyId: string; keyId: string; apiKey: string }>(
      redflag('company', 'create', '--name', 'Lifecycle Bank', '--json'),
    );
    expect((await call(company.apiKey, '/api/v1/auth/whoami')).status).toBe(200);
    const rotated = await json<{ keyId: string; apiKey: string; previous: { id: string } }>(
      redflag('key', 'rotate', company.keyId, '--grace-hours', '0', '--json'),
    );
    expect(rotated.previous.id).toBe(company.keyId);
    expect(await eventually(company.apiKey, '/api/v1/auth/whoami', 401)).toBe(401);
    expect((await call(rotated.apiKey, '/api/v1/auth/whoami')).status).toBe(200);

    expect((await redflag('company', 'suspend', company.companyId)).code).toBe(0);
    expect(await eventually(rotated.apiKey, '/api/v1/auth/whoami', 403)).toBe(403);
    expect((await redflag('company', 'activate', company.companyId)).code).toBe(0);
    expect(await eventually(rotated.apiKey, '/api/v1/auth/whoami', 200)).toBe(200);

    const revoked = await redflag('key', 'revoke', rotated.keyId);
    expect(revoked.stdout).toContain(`Revoked key ${rotated.keyId}`);
    expect(await eventually(rotated.apiKey, '/api/v1/auth/whoami', 401)).toBe(401);
  });

  it('creates an operator whose key administers over HTTP', async () => {
    const op = await json<{ operatorId: string; apiKey: string }>(redflag('operator', 'create', '--name', 'Ada Obi', '--json'));
    const res = await call(op.apiKey, '/api/v1/admin/companies?limit=100');
    expect(res.status).toBe(200);
    const names = (await body(res)).data.data.map((c: { businessName: string }) => c.businessName);
    expect(names).toEqual(expect.arrayContaining(['Acme MFB', 'Early Bird MFB']));
    const keys = await json<{ keys: Array<{ role: string }> }>(redflag('key', 'list', '--operator', op.operatorId, '--json'));
    expect(keys.keys).toEqual([expect.objectContaining({ role: 'operator' })]);
  });

  it('keeps the safelist (a create with the value is then refused over HTTP) and shows the jobs', async () => {
    const company = await json<{ apiKey: string }>(redflag('company', 'create', '--name', 'Safelist Test MFB', '--json'));
    const phone = `0803${String(Date.now()).slice(-7)}`;
    const added = await json<{ entry: { id: string; label: string }; reportsToReview: unknown[] }>(
      redflag('safelist', 'add', 'phone', phone, '--reason', 'The registry test line', '--json'),
    );
    expect(added).toMatchObject({ entry: { label: 'phone' }, reportsToReview: [] });
    const create = await fetch(`${baseUrl}/api/v1/external/reports`, {
      method: 'POST',
      headers: { 'x-api-key': company.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ fraudType: 'other', fraudReason: 'x'.repeat(60), identifiers: [{ label: 'phone', value: phone }] }),
    });
    expect(create.status).toBe(422);
    expect((await body(create)).data.code).toBe('IDENTIFIER_SAFELISTED');
    const listed = await redflag('safelist', 'list');
    expect(listed.stdout).toContain(added.entry.id);
    expect(listed.stdout).not.toContain(phone.slice(1));

    const jobs = await json<{ jobs: Array<{ name: string }> }>(redflag('jobs', 'status', '--json'));
    expect(jobs.jobs.map((j) => j.name)).toEqual(
      expect.arrayContaining([
        'uploads.sweep',
        'disputes.timeout',
        'listings.expire',
        'public-reports.cleanup',
        'audit.retention',
      ]),
    );
    expect((await redflag('jobs', 'status')).stdout).toMatch(/^JOB +STATE/);
  });

  it.runIf(engine === 'embedded')('reaches the server through a socket only its owner can open', () => {
    const stat = fs.statSync(path.join(dataDir, 'redflag.sock'));
    expect(stat.isSocket()).toBe(true);
    expect(stat.mode & 0o777).toBe(0o600);
  });

  it('links a company to its bank and shows webhook endpoints, the backlog and the watchlist count', async () => {
    const company = await json<{ companyId: string; apiKey: string }>(
      redflag('company', 'create', '--name', 'Linked MFB', '--json'),
    );
    const linked = await json<{ bank: { slug: string } }>(
      redflag('company', 'link-bank', company.companyId, 'zenith-bank', '--json'),
    );
    expect(linked.bank.slug).toBe('zenith-bank');
    const unknown = await redflag('company', 'link-bank', company.companyId, 'no-such-bank');
    // A value the service refuses is a usage mistake (exit 2), like every other refused option.
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('bankSlug');
    await fetch(`${baseUrl}/api/v1/external/watchlist`, {
      method: 'POST',
      headers: { 'x-api-key': company.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ items: [{ label: 'bvn', value: '22212345678' }] }),
    });
    expect(await json(redflag('watchlist', 'count', company.companyId, '--json'))).toEqual({ count: 1 });
    expect(await json(redflag('webhook', 'list', company.companyId, '--json'))).toEqual({ webhooks: [] });
    const backlog = await redflag('webhook', 'backlog');
    expect(backlog.code).toBe(0);
    expect(backlog.stdout).toMatch(/^pending \d+, failed \d+, delivered \d+/);
    expect((await redflag('webhook', 'redeliver', randomUUID())).code).toBe(1);
  });

  it('files a report over HTTP for the screening run below (the command screens without a server)', async () => {
    const reporter = await json<{ apiKey: string }>(redflag('company', 'create', '--name', 'Reporting Bank', '--json'));
    screened.phone = `0809${String(Date.now()).slice(-7)}`;
    const create = await fetch(`${baseUrl}/api/v1/external/reports`, {
      method: 'POST',
      headers: { 'x-api-key': reporter.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({
        fraudType: 'other',
        fraudReason: 'x'.repeat(60),
        identifiers: [{ label: 'phone', value: screened.phone }],
      }),
    });
    expect(create.status).toBe(201);
  });

  it('screens a customer file while the server runs (through it on the embedded engine), writing the results', async () => {
    const bank = await json<{ companyId: string }>(
      redflag('company', 'create', '--name', 'Screening While Serving MFB', '--json'),
    );
    const file = path.join(dataDir, 'serving.csv');
    fs.writeFileSync(file, `label,value,ref\nphone,${screened.phone},s-1\nnin,${String(Date.now()).slice(-11)},s-2\n`);
    const r = await json<{ job: { status: string; rowsScreened: number; matches: number }; matchesFile: string }>(
      redflag('screen', file, '--company', bank.companyId, '--out', path.join(dataDir, 'serving-out'), '--json'),
    );
    expect(r.job).toMatchObject({ status: 'done', rowsScreened: 2, matches: 1 });
    expect(r.matchesFile).toBe(path.join(dataDir, 'serving-out.matches.csv'));
    expect(fs.readFileSync(r.matchesFile, 'utf8')).toContain(`2,phone,${screened.phone},s-1,1,0,1,0,`);
  });

  it('fails every error path with a non-zero exit code and one line on stderr', async () => {
    const revokedKey = (await json<{ keyId: string }>(redflag('company', 'create', '--name', 'Gone Ltd', '--json'))).keyId;
    await redflag('key', 'revoke', revokedKey);
    const cases: Array<[string[], number, RegExp]> = [
      [[], 2, /missing command/],
      [['frobnicate'], 2, /unknown command 'frobnicate'/],
      [['company'], 2, /missing command: company create\|list\|suspend\|activate/],
      [['company', 'rename'], 2, /unknown command 'company rename'/],
      [['company', 'create'], 2, /required option '--name <name>' not specified/],
      [['company', 'create', '--name', 'X', '--rate-limit', 'lots'], 2, /--rate-limit.*must be an integer/],
      [['company', 'create', '--name', 'X', '--colour', 'red'], 2, /unknown option '--colour'/],
      [['company', 'create', '--name', '   '], 2, /Validation failed: --name must be 1 to 200 characters/],
      [['company', 'create', '--name', ''], 2, /Validation failed: --name must be 1 to 200 characters/],
      [['company', 'create', '--name', 'gone   LTD'], 1, /A company named "gone LTD" already exists .*--allow-duplicate/],
      [['company', 'list', '--status', 'closed'], 2, /--status/],
      [['company', 'suspend'], 2, /missing required argument 'companyId'/],
      [['company', 'suspend', randomUUID()], 1, /^redflag: Company not found$/m],
      [['company', 'activate', 'not-an-id'], 1, /Company not found/],
      [['key', 'issue', '--company', randomUUID()], 1, /Company not found/],
      [['key', 'issue', '--company', randomUUID(), '--expires-in-days', '0'], 2, /--expires-in-days/],
      [['key', 'list'], 2, /exactly one of/],
      [['key', 'revoke', randomUUID()], 1, /API key not found/],
      [['key', 'rotate', revokedKey], 1, /The API key is revoked/],
      [['key', 'rotate', randomUUID(), '--grace-hours', '-3'], 2, /--grace-hours/],
      [['operator', 'create'], 2, /required option '--name <name>'/],
    ];
    for (const [args, code, message] of cases) {
      const r = await redflag(...args);
      const label = `redflag ${args.join(' ')}`;
      expect(r.code, label).toBe(code);
      expect(r.stdout, label).toBe('');
      expect(r.stderr.split('\n').filter(Boolean), label).toHaveLength(1);
      expect(r.stderr, label).toMatch(/^redflag: /);
      expect(r.stderr, label).toMatch(message);
    }
  });
});

describe('help and duplicates', () => {
  it("prints each group's usage with one <command>", async () => {
    for (const group of ['company', 'key', 'operator']) {
      const r = await redflag(group, '--help');
      expect(r.code).toBe(0);
      expect(r.stdout.split('\n')[0]).toBe(`Usage: redflag ${group} <command> [options]`);
    }
  });

  it('creates a second company of an existing name only with --allow-duplicate', async () => {
    const first = await json<{ companyId: string }>(redflag('company', 'create', '--name', 'Twice MFB', '--json'));
    const again = await redflag('company', 'create', '--name', 'Twice MFB', '--json');
    expect(again.code).toBe(1);
    expect(again.stdout).toBe('');
    expect(again.stderr).toContain(first.companyId);
    const second = await json<{ companyId: string }>(
      redflag('company', 'create', '--name', 'Twice MFB', '--allow-duplicate', '--json'),
    );
    expect(second.companyId).not.toBe(first.companyId);
  });
});

/** What the running server's tests leave for the screening run (a reported phone). */
const screened = { phone: '' };

describe('the redflag command with no server running', () => {
  it('opens the data itself, and finds what the server wrote', async () => {
    await stopServer();
    if (engine === 'embedded') expect(fs.existsSync(path.join(dataDir, 'redflag.sock'))).toBe(false);
    const listed = await json<{ data: Array<{ businessName: string }> }>(redflag('company', 'list', '--json'));
    expect(listed.data.map((c) => c.businessName)).toEqual(expect.arrayContaining(['Acme MFB', 'Early Bird MFB']));
    const made = await json<{ companyId: string }>(redflag('company', 'create', '--name', 'Offline Co', '--json'));
    const again = await json<{ data: Array<{ id: string }> }>(redflag('company', 'list', '--json'));
    expect(again.data.map((c) => c.id)).toContain(made.companyId);
    // The safelist needs the blind-index key: the command loads it itself.
    const safelist = await json<{ entries: Array<{ label: string }> }>(redflag('safelist', 'list', '--json'));
    expect(safelist.entries.map((e) => e.label)).toContain('phone');
  });

  it('screens a customer file with a progress report, writing the matched and the rejected rows beside it', async () => {
    const bank = await json<{ companyId: string }>(redflag('company', 'create', '--name', 'Screening MFB', '--json'));
    const file = path.join(dataDir, 'customers.csv');
    fs.writeFileSync(file, `label,value,ref\nphone,${screened.phone},c-1\nemail,someone.else@example.com,c-2\nphone,12,c-3\n`);
    const r = await json<{ job: { status: string; rowsScreened: number; matches: number; errors: number }; matchesFile: string }>(
      redflag('screen', file, '--company', bank.companyId, '--json'),
    );
    expect(r.job).toMatchObject({ status: 'done', rowsScreened: 3, matches: 1, errors: 1 });
    const matches = fs.readFileSync(r.matchesFile, 'utf8').trim().split('\n');
    expect(matches).toHaveLength(2);
    expect(matches[1]).toMatch(new RegExp(`^2,phone,${screened.phone},c-1,1,0,1,0,`));
    expect(fs.readFileSync(path.join(dataDir, 'customers.errors.csv'), 'utf8')).toMatch(/^line,message\n4,/);
    const unknown = await redflag('screen', file, '--company', randomUUID());
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/Company .* not found/);
  });
});
