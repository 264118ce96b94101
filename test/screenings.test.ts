import http from 'node:http';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rotateKeys } from '../src/crypto/rotation.js';
import { sealedColumns } from '../src/crypto/sealed-columns.js';
import { uploadRowsPerSecond } from '../src/modules/screenings/screenings.service.js';
import { digits, localPhone } from './helpers/identifiers.js';
import { createCompany, key } from './helpers/principals.js';
import { createReport } from './helpers/reports.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';
import { multipart } from './helpers/uploads.js';

const PATH = '/api/v1/external/screenings';
let t: TestApp;
let bank: Awaited<ReturnType<typeof createCompany>>;
let reporter: Awaited<ReturnType<typeof createCompany>>;

beforeAll(async () => {
  // The worker is driven by hand here (`screenings.run`), so each step is seen.
  t = await buildTestApp({ config: { screeningPollMs: 0, jobTickSeconds: 0 } });
  bank = await createCompany(t, { businessName: 'Screening Bank' });
  reporter = await createCompany(t, { businessName: 'Reporting Fintech' });
});
afterAll(() => t.close());

const upload = (apiKey: string, csv: string) => {
  const body = multipart([{ name: 'file', filename: 'customers.csv', contentType: 'text/csv', data: csv }]);
  return t.app.inject({ method: 'POST', url: PATH, headers: { ...key(apiKey), ...body.headers }, payload: body.payload });
};
const job = async (apiKey: string, id: string) =>
  (await t.app.inject({ method: 'GET', url: `${PATH}/${id}`, headers: key(apiKey) })).json().data.job;
async function screenAll(apiKey: string, id: string) {
  for (let i = 0; i < 50; i++) {
    const state = await job(apiKey, id);
    if (state.status === 'done' || state.status === 'failed') return state;
    await t.app.jobs.runNow('screenings.run');
  }
  throw new Error('the screening did not finish');
}

describe('screening a customer file', () => {
  it('screens every row (4,500 rows, three chunks): matches with their figures, rejected rows by line, all audited', async () => {
    const fraudster = localPhone();
    const bvn = `22${digits(9)}`;
    await createReport(t, reporter.apiKey, { identifiers: [{ label: 'phone', value: fraudster }], fraudType: 'money_mule' });
    await createReport(t, reporter.apiKey, { identifiers: [{ label: 'bvn', value: bvn }], status: 'draft' });
    const lines = ['label,value,ref'];
    for (let i = 0; i < 4500; i++) lines.push(`email,customer.${i}.${digits(6)}@example.com,c-${i}`);
    lines[1001] = `phone,${fraudster},"=HYPERLINK(""x"")"`; // line 1002: a hit, with a ref a spreadsheet would run
    lines[2501] = `bvn,${bvn},c-draft`; // line 2502: only a draft names it, so no match
    lines[3001] = 'phone,12,c-bad'; // line 3002: not a phone
    lines[4001] = 'colour,red,c-odd'; // line 4002: no such identifier type
    const res = await upload(bank.apiKey, lines.join('\n'));
    expect(res.statusCode).toBe(202);
    const { id, status } = res.json().data.job;
    expect(['queued', 'running', 'done']).toContain(status);

    const done = await screenAll(bank.apiKey, id);
    expect(done).toMatchObject({ status: 'done', rowsRead: 4500, rowsScreened: 4500, matches: 1, errors: 2, fileComplete: true });
    expect(done.finishedAt).not.toBeNull();

    const matches = await t.app.inject({ method: 'GET', url: `${PATH}/${id}/matches.csv`, headers: key(bank.apiKey) });
    expect(matches.statusCode).toBe(200);
    expect(matches.headers['content-type']).toContain('text/csv');
    const [header, row, ...rest] = matches.body.trim().split('\n');
    expect(header).toBe(
      'line,label,value,ref,total_reports,total_public_reports,distinct_companies,open_disputes,risk_level,first_reported_at,last_reported_at',
    );
    expect(rest).toEqual([]);
    const cells = (row as string).split(',');
    expect(cells.slice(0, 3)).toEqual(['1002', 'phone', fraudster]);
    expect(cells[3]).toBe(`"'=HYPERLINK(""x"")"`);
    expect(cells.slice(4, 8)).toEqual(['1', '0', '1', '0']);
    expect(['low', 'medium', 'high']).toContain(cells[8]);

    const errors = await t.app.inject({ method: 'GET', url: `${PATH}/${id}/errors.csv`, headers: key(bank.apiKey) });
    const errorLines = errors.body.trim().split('\n');
    expect(errorLines[0]).toBe('line,message');
    expect(errorLines.slice(1).map((l) => l.split(',')[0])).toEqual(['3002', '4002']);
    expect(errors.body).not.toContain('red');

    // One audit row per screened row (rejected rows are not searches), in bulk, never a value.
    const audit = await sql<{ n: string; hits: string }>`
      select count(*) as n, count(*) filter (where result_count > 0) as hits
      from audit_events where request_id = ${`screening:${id}`} and action = 'screen'`.execute(t.database.db);
    expect({ n: Number(audit.rows[0]?.n), hits: Number(audit.rows[0]?.hits) }).toEqual({ n: 4498, hits: 1 });
    // The file is not kept once screened: only the sealed matched row remains.
    const chunks = await sql<{ n: string }>`select count(*) as n from screening_chunks where job_id = ${id}`.execute(
      t.database.db,
    );
    expect(Number(chunks.rows[0]?.n)).toBe(0);
  });

  it('starts one job of two files sent at once by one company; the other is 409', async () => {
    const member = await createCompany(t, { businessName: 'Hurried Bank' });
    const sent = await Promise.all([1, 2].map((n) => upload(member.apiKey, `label,value\nphone,${localPhone()}\n${n}`)));
    expect(sent.map((r) => r.statusCode).sort()).toEqual([202, 409]);
    const jobs = await sql<{
      n: string;
    }>`select count(*) as n from screening_jobs where company_id = ${member.companyId}`.execute(t.database.db);
    expect(Number(jobs.rows[0]?.n)).toBe(1);
  });

  it("is another company's exactly as a random id is: 404", async () => {
    const res = await upload(bank.apiKey, `label,value\nphone,${localPhone()}\n`);
    const { id } = res.json().data.job;
    await screenAll(bank.apiKey, id);
    const other = await createCompany(t);
    for (const path of [`${PATH}/${id}`, `${PATH}/${id}/matches.csv`, `${PATH}/${id}/errors.csv`]) {
      const theirs = await t.app.inject({ method: 'GET', url: path, headers: key(other.apiKey) });
      const random = await t.app.inject({
        method: 'GET',
        url: path.replace(id, crypto.randomUUID()),
        headers: key(other.apiKey),
      });
      expect(theirs.statusCode).toBe(404);
      expect({ ...theirs.json(), data: { ...theirs.json().data, requestId: '' } }).toEqual({
        ...random.json(),
        data: { ...random.json().data, requestId: '' },
      });
    }
  });

  it('resumes at its next chunk after a worker dies holding it, once its lease lapses; no row screened twice', async () => {
    const lines = ['label,value,ref'];
    for (let i = 0; i < 5000; i++) lines.push(`nin,${digits(11)},r-${i}`);
    const { id } = (await upload(bank.apiKey, lines.join('\n'))).json().data.job;
    // One screening at a time per company.
    const second = await upload(bank.apiKey, 'label,value\nnin,12345678901\n');
    expect(second.statusCode).toBe(409);
    expect(second.json().data.code).toBe('INVALID_STATE');
    // One chunk screened and committed...
    expect(await t.app.screenings.runDue(id, 1)).toBe(2000);
    expect(await job(bank.apiKey, id)).toMatchObject({ status: 'running', rowsScreened: 2000 });
    // ...then a worker takes the job and is killed (kill -9) before its next commit: its lease stands.
    await sql`update screening_jobs set lease_owner = 'killed-worker', lease_until = now() + interval '1 hour'
              where id = ${id}`.execute(t.database.db);
    await t.app.jobs.runNow('screenings.run');
    expect((await job(bank.apiKey, id)).rowsScreened).toBe(2000);
    // The lease lapses: the next worker resumes at chunk 1.
    await sql`update screening_jobs set lease_until = now() - interval '1 second' where id = ${id}`.execute(t.database.db);
    const done = await screenAll(bank.apiKey, id);
    expect(done).toMatchObject({ status: 'done', rowsRead: 5000, rowsScreened: 5000, matches: 0, errors: 0 });
    const audit = await sql<{ action: string; n: string }>`
      select action, count(*) as n from audit_events where request_id = ${`screening:${id}`}
      group by action order by action`.execute(t.database.db);
    // Every row once, and one row saying the file was sent (naming the job): none twice after the kill.
    expect(audit.rows.map((r) => [r.action, Number(r.n)])).toEqual([
      ['screen', 5000],
      ['screening_start', 1],
    ]);
    const started = await sql<{ subject_id: string }>`
      select subject_id from audit_events where action = 'screening_start' and request_id = ${`screening:${id}`}`.execute(
      t.database.db,
    );
    expect(started.rows[0]?.subject_id).toBe(id);
  });

  it('takes a file with a quote that never closes: that line is rejected, the rows before and after it are screened', async () => {
    const res = await upload(
      bank.apiKey,
      `label,value,ref\nphone,${localPhone()},a\nemail,"unterminated@example.com,b\nphone,${localPhone()},c\n`,
    );
    expect(res.statusCode).toBe(202);
    const done = await screenAll(bank.apiKey, res.json().data.job.id);
    expect(done).toMatchObject({ status: 'done', rowsRead: 3, rowsScreened: 3, errors: 1 });
  });

  it('answers a second file 409 on a connection that stays usable, the upload let through unread', async () => {
    const member = await createCompany(t, { businessName: 'Busy Bank' });
    expect((await upload(member.apiKey, `label,value\nphone,${localPhone()}\n`)).statusCode).toBe(202);
    const rows = ['label,value'];
    for (let i = 0; i < 60_000; i++) rows.push(`phone,0803${String(3_000_000 + i).padStart(7, '0')}`);
    const body = multipart([{ name: 'file', filename: 'big.csv', contentType: 'text/csv', data: rows.join('\n') }]);
    const address = new URL(await t.app.listen({ port: 0, host: '127.0.0.1' }));
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const send = (method: string, path: string, payload?: Buffer) =>
      new Promise<{ status?: number; error?: string }>((resolve) => {
        const req = http.request(
          {
            host: address.hostname,
            port: address.port,
            method,
            path,
            agent,
            headers: payload ? { ...key(member.apiKey), ...body.headers, 'content-length': payload.length } : {},
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve({ status: res.statusCode }));
          },
        );
        req.on('error', (error) => resolve({ error: error.message }));
        req.end(payload);
      });
    try {
      expect(await send('POST', PATH, body.payload)).toEqual({ status: 409 });
      expect(await send('GET', '/healthz')).toEqual({ status: 200 });
    } finally {
      agent.destroy();
    }
  });

  it('answers a CSV sent as the body itself with 415 saying how to send it', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: PATH,
      headers: { ...key(bank.apiKey), 'content-type': 'text/csv' },
      payload: `label,value\nphone,${localPhone()}\n`,
    });
    expect(res.statusCode).toBe(415);
    expect(res.json().message).toContain('multipart/form-data, in the field "file"');
  });

  it('refuses, naming the file, an upload of two files and a file without its header line, and fails their jobs', async () => {
    const csv = `label,value,ref\nphone,${localPhone()},a\n`;
    const two = multipart([
      { name: 'file', filename: 'a.csv', contentType: 'text/csv', data: csv },
      { name: 'file', filename: 'b.csv', contentType: 'text/csv', data: csv },
    ]);
    const headerless = multipart([
      { name: 'file', filename: 'c.csv', contentType: 'text/csv', data: `phone,${localPhone()},first-customer\n` },
    ]);
    for (const body of [two, headerless]) {
      const company = await createCompany(t);
      const res = await t.app.inject({
        method: 'POST',
        url: PATH,
        headers: { ...key(company.apiKey), ...body.headers },
        payload: body.payload,
      });
      expect(res.statusCode).toBe(400);
      const [error] = res.json().data.errors;
      expect(error.field).toBe('file');
      const [failed] = (await t.app.inject({ method: 'GET', url: PATH, headers: key(company.apiKey) })).json().data.jobs;
      expect(failed).toMatchObject({ status: 'failed', failure: error.message });
    }
  });

  it('fails a job whose upload breaks off, naming the file, and refuses a request that is not a file', async () => {
    const body = multipart([
      { name: 'file', filename: 'c.csv', contentType: 'text/csv', data: `label,value\nphone,${localPhone()}\n` },
    ]);
    // The closing boundary never comes: the file did not arrive whole.
    const cut = body.payload.subarray(0, body.payload.length - 30);
    const res = await t.app.inject({
      method: 'POST',
      url: PATH,
      headers: { ...key(bank.apiKey), ...body.headers },
      payload: cut,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().data.errors[0].field).toBe('file');
    const json = await t.app.inject({ method: 'POST', url: PATH, headers: key(bank.apiKey), payload: { file: 'x' } });
    expect(json.statusCode).toBe(415);
    // Multipart without a boundary cannot be read: a 400 naming the file, here and on the watchlist import.
    const imported = await t.app.inject({ method: 'POST', url: '/api/v1/external/watchlist/imports', headers: key(bank.apiKey) });
    for (const url of [PATH, `/api/v1/external/watchlist/imports/${imported.json().data.import.id}/file`]) {
      const headers = { ...key(bank.apiKey), 'content-type': 'multipart/form-data' };
      const res = await t.app.inject({ method: 'POST', url, headers, payload: 'a=b' });
      expect(res.statusCode, url).toBe(400);
      expect(res.json().data.errors[0].field).toBe('file');
    }
  });
});

describe('key rotation', () => {
  it("re-seals a waiting file's chunks and the matched rows (crypto rotate lists both); the job still screens and reads", async () => {
    const member = await createCompany(t, { businessName: 'Rotating Bank' });
    const fraudster = localPhone();
    await createReport(t, reporter.apiKey, { identifiers: [{ label: 'phone', value: fraudster }] });
    const first = (await upload(member.apiKey, `label,value,ref\nphone,${fraudster},first\n`)).json().data.job.id;
    await screenAll(member.apiKey, first);
    const second = (await upload(member.apiKey, `label,value,ref\nphone,${fraudster},second\n`)).json().data.job.id;

    const summary = await rotateKeys({ db: t.database.db, crypto: t.app.crypto, columns: sealedColumns });
    expect(summary.failed).toBe(0);
    const rotated = (table: string) => summary.columns.find((c) => c.table === table)?.reencrypted ?? 0;
    expect(rotated('screening_chunks')).toBeGreaterThanOrEqual(1);
    expect(rotated('screening_matches')).toBeGreaterThanOrEqual(1);
    const stale = await sql<{ n: string }>`
      select (select count(*) from screening_chunks where body_token not like ${`v2.${summary.keyId}.%`})
        + (select count(*) from screening_matches where row_token not like ${`v2.${summary.keyId}.%`}) as n`.execute(
      t.database.db,
    );
    expect(Number(stale.rows[0]?.n)).toBe(0);

    expect(await screenAll(member.apiKey, second)).toMatchObject({ status: 'done', matches: 1 });
    for (const [id, ref] of [
      [first, 'first'],
      [second, 'second'],
    ] as const) {
      const csv = await t.app.inject({ url: `${PATH}/${id}/matches.csv`, headers: key(member.apiKey) });
      expect(csv.body.trim().split('\n')[1]?.split(',').slice(0, 4)).toEqual(['2', 'phone', fraudster, ref]);
    }
  });
});

describe('the pace of a screening job', () => {
  let slow: TestApp;
  beforeAll(async () => {
    slow = await buildTestApp({ config: { screeningPollMs: 0, jobTickSeconds: 0, screeningRowsPerSecond: 1_000 } });
  });
  afterAll(() => slow.close());

  it('stores a file at three times the pace of its job, never under 40,000 rows a second, or at none', () => {
    expect(uploadRowsPerSecond(0)).toBe(0);
    expect(uploadRowsPerSecond(1_000)).toBe(40_000);
    expect(uploadRowsPerSecond(12_000)).toBe(40_000);
    expect(uploadRowsPerSecond(20_000)).toBe(60_000);
  });

  it('screens no faster than REDFLAG_SCREENING_ROWS_PER_SECOND', async () => {
    const company = await createCompany(slow);
    const lines = ['label,value,ref'];
    for (let i = 0; i < 2000; i++) lines.push(`nin,${digits(11)},r-${i}`);
    const body = multipart([{ name: 'file', filename: 'c.csv', contentType: 'text/csv', data: lines.join('\n') }]);
    const res = await slow.app.inject({
      method: 'POST',
      url: PATH,
      headers: { ...key(company.apiKey), ...body.headers },
      payload: body.payload,
    });
    const { id } = res.json().data.job;
    const started = performance.now();
    // One chunk of 2,000 rows at 1,000 a second is due 2 s after the turn starts (without the pace,
    // a fraction of that).
    expect(await slow.app.screenings.runDue(id, 1)).toBe(2000);
    expect(performance.now() - started).toBeGreaterThanOrEqual(1_950);
    const state = (await slow.app.inject({ method: 'GET', url: `${PATH}/${id}`, headers: key(company.apiKey) })).json();
    expect(state.data.job).toMatchObject({ status: 'done', rowsScreened: 2000 });
  });
});
