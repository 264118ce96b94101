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
    const id = await start();
    const res = await send(
      id,
      multipart([{ name: 'file', filename: 'watch.csv', contentType: 'text/csv', data: lines.join('\n') }]),
    );
    expect(res.statusCode).toBe(200);
    const result = res.json().data.import;
    expect(result).toMatchObject({ status: 'done', processedLines: 2501, failedRows: 4 });
    const errors = await t.app.inject({ method: 'GET', url: `${IMPORTS}/${id}/errors`, headers: key(company.apiKey) });
    const byLine = errors.json().data.data as Array<{ line: number; message: string }>;
    expect(byLine.map((e) => e.line)).toEqual([11, 21, 31, 1501]);
    expect(JSON.stringify(byLine)).not.toContain('234567');
    const count = await t.app.inject({ method: 'GET', url: '/api/v1/external/watchlist/count', headers: key(company.apiKey) });
    expect(count.json().data.count).toBe(result.importedRows);
    expect(result.importedRows).toBe(2496);
  });

  it('an upload cut off part-way resumes: sending the file again skips the lines already committed', async () => {
    const lines = csv(2500);
    const whole = multipart([{ name: 'file', filename: 'watch.csv', contentType: 'text/csv', data: lines.join('\n') }]);
    const id = await start();
    // The body ends in the middle of line ~2200, without the closing boundary: the upload broke off.
    const cut = whole.payload.subarray(0, whole.payload.indexOf(Buffer.from(lines[2200] as string)) + 5);
    const broken = await send(id, { payload: cut, headers: whole.headers });
    expect(broken.statusCode).toBe(400);
    const progress = await t.app.inject({ method: 'GET', url: `${IMPORTS}/${id}`, headers: key(company.apiKey) });
    const halfway = progress.json().data.import;
    expect(halfway.status).toBe('interrupted');
    expect(halfway.processedLines).toBe(2001);
    expect(halfway.importedRows).toBe(2000);

    const resumed = await send(id, whole);
    expect(resumed.statusCode).toBe(200);
    expect(resumed.json().data.import).toMatchObject({ status: 'done', importedRows: 2500, failedRows: 0, processedLines: 2501 });
    const again = await send(id, whole);
    expect(again.statusCode).toBe(409);
  });

  it("another company's import is a 404", async () => {
    const id = await start();
    const other = await createCompany(t);
    const res = await t.app.inject({ method: 'GET', url: `${IMPORTS}/${id}`, headers: key(other.apiKey) });
    expect(res.statusCode).toBe(404);
  });
});
