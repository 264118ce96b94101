import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompany, key } from './helpers/principals.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';
import { multipart } from './helpers/uploads.js';

const IMPORTS = '/api/v1/external/watchlist/imports';
let serial = 3_000_000 + (process.pid % 1000) * 1000;

/** A CSV of `rows` good phone lines, with bad lines at known line numbers. */
function csv(rows: number) {
  const lines = ['label,value,ref'];
  for (let i = 0; i < rows; i++) lines.push(`phone,0806${String(++serial).padStart(7, '0')},cust-${i}`);
  return lines;
}

describe('watchlist CSV import', () => {
  let t: TestApp;
  let company: Awaited<ReturnType<typeof createCompany>>;

  beforeAll(async () => {
    t = await buildTestApp({ config: { webhookPollMs: 0, jobTickSeconds: 0 } });
    company = await createCompany(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  const start = async () => {
    const res = await t.app.inject({ method: 'POST', url: IMPORTS, headers: key(company.apiKey) });
    expect(res.statusCode).toBe(201);
    return res.json().data.import.id as string;
  };
  const send = (id: string, body: { payload: Buffer; headers: Record<string, string> }) =>
    t.app.inject({
      method: 'POST',
      url: `${IMPORTS}/${id}/file`,
      headers: { ...key(company.apiKey), ...body.headers },
      payload: body.payload,
    });

  it('imports every good line; each bad line is reported by number and never stops the file', async () => {
    const lines = csv(2500);
    lines[10] = 'phone,12,bad-phone'; // line 11
    lines[20] = 'colour,red'; // line 21
    lines[30] = 'phone,08061"234567,x'; // line 31: not valid CSV, the rest of the file is still read
    lines[1500] = lines[1499] as string; // line 1501 repeats line 1500
    lines[1600] = 'phone,"08061234567"x,y'; // line 1601: a quote out of place; csv-parse alone lost the rest
    lines[1700] = `phone,${'9'.repeat(5000)},z`; // line 1701: too long
    const id = await start();
    const res = await send(
      id,
      multipart([{ name: 'file', filename: 'watch.csv', contentType: 'text/csv', data: lines.join('\n') }]),
    );
    expect(res.statusCode).toBe(200);
    const result = res.json().data.import;
    expect(result).toMatchObject({ status: 'done', processedLines: 2501, failedRows: 6 });
    const errors = await t.app.inject({ method: 'GET', url: `${IMPORTS}/${id}/errors`, headers: key(company.apiKey) });
    const byLine = errors.json().data.data as Array<{ line: number; message: string }>;
    expect(byLine.map((e) => e.line)).toEqual([11, 21, 31, 1501, 1601, 1701]);
    // A repeat names the line it repeats, not its place in a batch.
    expect(byLine.find((e) => e.line === 1501)?.message).toBe('is the same identifier as line 1500');
    expect(JSON.stringify(byLine)).not.toContain('234567');
    const count = await t.app.inject({ method: 'GET', url: '/api/v1/external/watchlist/count', headers: key(company.apiKey) });
    expect(count.json().data.count).toBe(result.importedRows);
    expect(result.importedRows).toBe(2494);
  });

  it('an upload cut off part-way resumes: sending the file again skips the lines already committed', async () => {
    const lines = csv(2500);
    const whole = multipart([{ name: 'file', filename: 'watch.csv', contentType: 'text/csv', data: lines.join('\n') }]);
    const id = await start();
    // A real connection sends the file up to the middle of line ~2200, waits until the first two
    // batches are committed, then drops: the upload broke off.
    const cut = whole.payload.subarray(0, whole.payload.indexOf(Buffer.from(lines[2200] as string)) + 5);
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const upload = http.request(`${address}${IMPORTS}/${id}/file`, {
      method: 'POST',
      headers: { ...key(company.apiKey), ...whole.headers, 'content-length': String(whole.payload.length) },
    });
    upload.on('error', () => {}); // the connection is dropped on purpose
    upload.write(cut);
    const progress = async () =>
      (await t.app.inject({ method: 'GET', url: `${IMPORTS}/${id}`, headers: key(company.apiKey) })).json().data.import;
    await expect.poll(async () => (await progress()).processedLines, { timeout: 20_000, interval: 50 }).toBe(2001);
    upload.destroy();
    await expect.poll(async () => (await progress()).status, { timeout: 20_000, interval: 50 }).toBe('interrupted');
    // The rows read after the last committed batch (up to line ~2200) were not kept: they are read again.
    expect(await progress()).toMatchObject({ processedLines: 2001, importedRows: 2000, failedRows: 0 });

    const resumed = await send(id, whole);
    expect(resumed.statusCode).toBe(200);
    expect(resumed.json().data.import).toMatchObject({ status: 'done', importedRows: 2500, failedRows: 0, processedLines: 2501 });
    const again = await send(id, whole);
    expect(again.statusCode).toBe(409);
  });

  it('reads one file at a time into an import: the same file sent three times at once is read once, the others 409', async () => {
    const lines = csv(2500);
    const whole = multipart([{ name: 'file', filename: 'watch.csv', contentType: 'text/csv', data: lines.join('\n') }]);
    const id = await start();
    const answers = await Promise.all([send(id, whole), send(id, whole), send(id, whole)]);
    expect(answers.map((r) => r.statusCode).sort()).toEqual([200, 409, 409]);
    const read = answers.find((r) => r.statusCode === 200)?.json().data.import;
    expect(read).toMatchObject({ status: 'done', processedLines: 2501, importedRows: 2500, failedRows: 0 });
  });

  it('a body that ends before its closing boundary is a 400 naming the file, and the import can be resumed', async () => {
    const lines = csv(300);
    const whole = multipart([{ name: 'file', filename: 'watch.csv', contentType: 'text/csv', data: lines.join('\n') }]);
    const id = await start();
    const cut = whole.payload.subarray(0, whole.payload.indexOf(Buffer.from(lines[200] as string)) + 5);
    const broken = await send(id, { payload: cut, headers: whole.headers });
    expect(broken.statusCode).toBe(400);
    expect(broken.json().data.errors[0].field).toBe('file');
    const resumed = await send(id, whole);
    expect(resumed.json().data.import).toMatchObject({ status: 'done', importedRows: 300, failedRows: 0, processedLines: 301 });
  });

  it('counts the lines of a file that ends with a newline as the file has them', async () => {
    const lines = csv(10);
    const id = await start();
    const res = await send(
      id,
      multipart([{ name: 'file', filename: 'watch.csv', contentType: 'text/csv', data: `${lines.join('\n')}\n` }]),
    );
    expect(res.json().data.import).toMatchObject({ status: 'done', processedLines: 11, importedRows: 10 });
  });

  it('reads the columns by the names on the first line, in any order and case, after a byte-order mark', async () => {
    // A quote opening the first name after the mark had csv-parse read the whole file as one value.
    const rows = csv(5)
      .slice(1)
      .map((line) => line.split(',').reverse().join(','));
    const id = await start();
    const res = await send(
      id,
      multipart([
        { name: 'file', filename: 'watch.csv', contentType: 'text/csv', data: `\uFEFF"Ref",VALUE,Label\n${rows.join('\n')}` },
      ]),
    );
    expect(res.statusCode).toBe(200);
    expect(res.json().data.import).toMatchObject({ status: 'done', processedLines: 6, importedRows: 5, failedRows: 0 });
  });

  it('refuses a file whose first line is not a header, before a row is added; the right file is then taken', async () => {
    const lines = csv(20);
    const id = await start();
    const headless = await send(
      id,
      multipart([{ name: 'file', filename: 'watch.csv', contentType: 'text/csv', data: lines.slice(1).join('\n') }]),
    );
    expect(headless.statusCode).toBe(400);
    expect(headless.json().data.errors).toEqual([
      { field: 'file', message: expect.stringContaining('first line must name the columns') },
    ]);
    const empty = await send(id, multipart([{ name: 'file', filename: 'watch.csv', contentType: 'text/csv', data: '' }]));
    expect(empty.json().data.errors).toEqual([{ field: 'file', message: expect.stringContaining('The file is empty') }]);
    const count = await t.app.inject({ method: 'GET', url: `${IMPORTS}/${id}`, headers: key(company.apiKey) });
    expect(count.json().data.import).toMatchObject({ importedRows: 0, processedLines: 0 });
    const whole = await send(
      id,
      multipart([{ name: 'file', filename: 'watch.csv', contentType: 'text/csv', data: lines.join('\n') }]),
    );
    expect(whole.json().data.import).toMatchObject({ status: 'done', importedRows: 20, processedLines: 21 });
  });

  it('refuses an upload of two files, naming the file, instead of dropping the second without a word', async () => {
    const id = await start();
    const res = await send(
      id,
      multipart([
        { name: 'file', filename: 'a.csv', contentType: 'text/csv', data: csv(3).join('\n') },
        { name: 'file', filename: 'b.csv', contentType: 'text/csv', data: csv(3).join('\n') },
      ]),
    );
    expect(res.statusCode).toBe(400);
    expect(res.json().data.errors).toEqual([{ field: 'file', message: expect.stringContaining('exactly one file') }]);
    const state = await t.app.inject({ method: 'GET', url: `${IMPORTS}/${id}`, headers: key(company.apiKey) });
    expect(state.json().data.import.status).toBe('interrupted');
  });

  it("another company's import is a 404", async () => {
    const id = await start();
    const other = await createCompany(t);
    const res = await t.app.inject({ method: 'GET', url: `${IMPORTS}/${id}`, headers: key(other.apiKey) });
    expect(res.statusCode).toBe(404);
  });
});
