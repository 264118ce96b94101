import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createCompany, key } from './helpers/principals.js';
import { createReport, reportBody, search } from './helpers/reports.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';
import { pathOf, samples, uploadedUrl, uploadFile } from './helpers/uploads.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());
afterEach(() => {
  vi.useRealTimers();
});

const SIGNED = /^http:\/\/127\.0\.0\.1:3000\/api\/v1\/files\/[0-9a-f-]{36}\?expires=\d+&signature=[A-Za-z0-9_-]{43}$/;

const post = (apiKey: string, payload: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url: '/api/v1/external/reports', headers: key(apiKey), payload });
const download = (url: string) => t.app.inject({ method: 'GET', url: pathOf(url) });

/** A unique phone number per call, so searches find only this test's reports. */
let phoneSerial = 1_000_000;
const phone = () => `0803${String(++phoneSerial).padStart(7, '0')}`;

describe('attachments on create', () => {
  it('takes up to three of the company’s uploads and answers with signed download links', async () => {
    const company = await createCompany(t);
    const files = [samples.pdf(), samples.png(), samples.webp()];
    const urls = [];
    for (const file of files) urls.push(await uploadedUrl(t, company.apiKey, file));
    const res = await post(company.apiKey, reportBody({ attachments: urls }));
    expect(res.statusCode).toBe(201);
    const { attachments } = res.json().data;
    expect(attachments).toHaveLength(3);
    for (const [i, link] of (attachments as string[]).entries()) {
      expect(link).toMatch(SIGNED);
      const file = await download(link);
      expect(file.statusCode).toBe(200);
      expect(file.rawPayload.equals(files[i] as Buffer)).toBe(true);
      expect(file.headers['content-type']).toBe(['application/pdf', 'image/png', 'image/webp'][i]);
      expect(file.headers['content-disposition']).toMatch(/^attachment; filename="[0-9a-f-]{36}\.(pdf|png|webp)"$/);
      expect(file.headers['x-content-type-options']).toBe('nosniff');
      expect(file.headers['content-security-policy']).toBe("sandbox; default-src 'none'");
    }
  });

  it('refuses a fourth attachment', async () => {
    const company = await createCompany(t);
    const urls = [];
    for (let i = 0; i < 4; i++) urls.push(await uploadedUrl(t, company.apiKey));
    const res = await post(company.apiKey, reportBody({ attachments: urls }));
    expect(res.statusCode).toBe(400);
    expect(res.json().data.errors).toEqual([{ field: 'attachments', message: 'must have at most 3 items' }]);
  });

  it("refuses another company's upload, unknown, foreign, public and malformed URLs, naming each index", async () => {
    const company = await createCompany(t);
    const other = await createCompany(t);
    const theirs = await uploadedUrl(t, other.apiKey);
    const publicUpload = (await uploadFile(t, undefined, samples.pdf(), { url: '/api/v1/public/uploads' })).json().data.url;
    const mine = await uploadedUrl(t, company.apiKey);
    const id = mine.split('/').at(-1);

    const foreignCompany = await post(company.apiKey, reportBody({ attachments: [theirs] }));
    expect(foreignCompany.statusCode).toBe(400);
    expect(foreignCompany.json().data.errors).toEqual([
      { field: 'attachments/0', message: expect.stringContaining('is not a file uploaded here') },
    ]);

    const unknown = `${t.config.publicUrl}/api/v1/external/uploads/0b8f5c4e-1d7a-4c55-9a43-5f1e2d3c4b5a`;
    const res = await post(
      company.apiKey,
      reportBody({ attachments: [unknown, `https://files.example.com/api/v1/external/uploads/${id}`, 'not a url'] }),
    );
    expect(res.statusCode).toBe(400);
    expect(res.json().data.errors.map((e: { field: string }) => e.field)).toEqual([
      'attachments/0',
      'attachments/1',
      'attachments/2',
    ]);

    const wrongRoute = await post(company.apiKey, reportBody({ attachments: [mine, publicUpload] }));
    expect(wrongRoute.json().data.errors).toEqual([
      { field: 'attachments/1', message: 'must be a URL returned by POST /api/v1/external/uploads' },
    ]);
    const twice = await post(company.apiKey, reportBody({ attachments: [mine, mine] }));
    expect(twice.json().data.errors).toEqual([{ field: 'attachments/1', message: 'is the same file as attachments/0' }]);

    // Nothing was attached by the refused requests: the file is still free for a report of its own company.
    expect((await post(company.apiKey, reportBody({ attachments: [mine] }))).statusCode).toBe(201);
    // The other company's file is still its own, unattached.
    expect((await post(other.apiKey, reportBody({ attachments: [theirs] }))).statusCode).toBe(201);
  });

  it('refuses a file already attached to another report', async () => {
    const company = await createCompany(t);
    const url = await uploadedUrl(t, company.apiKey);
    expect((await post(company.apiKey, reportBody({ attachments: [url] }))).statusCode).toBe(201);
    const again = await post(company.apiKey, reportBody({ attachments: [url] }));
    expect(again.statusCode).toBe(400);
    expect(again.json().data.errors).toEqual([{ field: 'attachments/0', message: expect.stringContaining('already attached') }]);
  });

  it('lets only one of two simultaneous reports take the same file', async () => {
    const company = await createCompany(t);
    const url = await uploadedUrl(t, company.apiKey);
    const results = await Promise.all([
      post(company.apiKey, reportBody({ attachments: [url] })),
      post(company.apiKey, reportBody({ attachments: [url] })),
    ]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([201, 400]);
    const refused = results.find((r) => r.statusCode === 400);
    expect(refused?.json().data.errors).toEqual([
      { field: 'attachments/0', message: expect.stringContaining('already attached') },
    ]);
  });

  it('replays an idempotent create with freshly signed links', async () => {
    const company = await createCompany(t);
    const url = await uploadedUrl(t, company.apiKey);
    const body = reportBody({ attachments: [url] });
    const send = () =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/external/reports',
        headers: { ...key(company.apiKey), 'idempotency-key': `att-${company.companyId}` },
        payload: body,
      });
    const first = await send();
    expect(first.statusCode).toBe(201);
    const replay = await send();
    expect(replay.headers['idempotent-replayed']).toBe('true');
    const [link] = replay.json().data.attachments;
    expect(link).toMatch(SIGNED);
    expect((await download(link)).statusCode).toBe(200);
  });
});

describe('signed download links', () => {
  it('work without a key, then fail with 403 after they expire', async () => {
    const company = await createCompany(t);
    const report = await createReport(t, company.apiKey, { attachments: [await uploadedUrl(t, company.apiKey)] });
    const [link] = report.attachments as string[];
    expect((await download(link as string)).statusCode).toBe(200);

    const issued = Date.now();
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(issued + 14 * 60_000);
    expect((await download(link as string)).statusCode).toBe(200);
    vi.setSystemTime(issued + 15 * 60_000 + 1_000);
    const expired = await download(link as string);
    expect(expired.statusCode).toBe(403);
    expect(expired.json()).toMatchObject({
      success: false,
      message: expect.stringContaining('expired'),
      data: { code: 'FORBIDDEN' },
    });
  });

  it('fail with 403 when any one character of the id, expiry or signature is changed', async () => {
    const company = await createCompany(t);
    const report = await createReport(t, company.apiKey, { attachments: [await uploadedUrl(t, company.apiKey)] });
    const link = pathOf(report.attachments[0]);
    expect((await t.app.inject({ method: 'GET', url: link })).statusCode).toBe(200);
    const query = link.indexOf('?');
    const positions = [
      link.indexOf('/files/') + 8, // in the id
      link.indexOf('expires=') + 9, // in the expiry
      link.indexOf('signature=') + 12, // in the signature
      link.length - 1, // the signature's last character (its low bits decode alike in base64)
    ];
    for (const at of positions) {
      const original = link.charAt(at);
      const swapped = original === 'a' ? 'b' : original === '1' ? '2' : at > query ? (/\d/.test(original) ? '1' : 'a') : 'a';
      const altered = `${link.slice(0, at)}${swapped}${link.slice(at + 1)}`;
      expect(altered).not.toBe(link);
      const res = await t.app.inject({ method: 'GET', url: altered });
      expect(res.statusCode, altered).toBe(403);
      expect(res.json().data.code).toBe('FORBIDDEN');
    }
    const bare = link.slice(0, query);
    expect((await t.app.inject({ method: 'GET', url: bare })).statusCode).toBe(403);
  });
});

describe('attachments in every report body', () => {
  it('are signed links in search, list, get and decode', async () => {
    const company = await createCompany(t);
    const searcher = await createCompany(t);
    const number = phone();
    const report = await createReport(t, company.apiKey, {
      identifiers: [{ label: 'phone', value: number }],
      attachments: [await uploadedUrl(t, company.apiKey), await uploadedUrl(t, company.apiKey, samples.jpeg())],
    });
    await createReport(t, company.apiKey, { identifiers: [{ label: 'phone', value: number }] });

    const found = await search(t, searcher.apiKey, 'phone', number);
    expect(found.statusCode).toBe(200);
    const reports = found.json().data.reports;
    expect(reports).toHaveLength(2);
    const withFiles = reports.find((r: { id: string }) => r.id === report.id);
    expect(withFiles.attachments).toHaveLength(2);
    for (const link of withFiles.attachments) expect((await download(link)).statusCode).toBe(200);
    expect(reports.find((r: { id: string }) => r.id !== report.id).attachments).toEqual([]);

    const base = '/api/v1/external/reports/submissions';
    const list = await t.app.inject({ method: 'GET', url: base, headers: key(company.apiKey) });
    const listed = list.json().data.data.find((r: { id: string }) => r.id === report.id);
    const get = await t.app.inject({ method: 'GET', url: `${base}/${report.id}`, headers: key(company.apiKey) });
    const decode = await t.app.inject({ method: 'GET', url: `${base}/${report.id}/decode`, headers: key(company.apiKey) });
    for (const body of [listed, get.json().data.report, decode.json().data.report]) {
      expect(body.attachments).toHaveLength(2);
      for (const link of body.attachments) expect(link).toMatch(SIGNED);
    }
  });

  it('a search without attachments answers the same shape (no links to sign)', async () => {
    const company = await createCompany(t);
    const number = phone();
    await createReport(t, company.apiKey, { identifiers: [{ label: 'phone', value: number }] });
    const res = await search(t, company.apiKey, 'phone', number);
    expect(res.json().data.reports[0].attachments).toEqual([]);
    expect(res.json().data.summary).toMatchObject({ totalReports: 1, totalPublicReports: 0 });
  });
});

describe('attachments on draft edit', () => {
  it('replace the list; a file taken off is unattached again (and swept 24 hours later)', async () => {
    const company = await createCompany(t);
    const other = await createCompany(t);
    const first = await uploadedUrl(t, company.apiKey);
    const second = await uploadedUrl(t, company.apiKey);
    const draft = await createReport(t, company.apiKey, { status: 'draft', attachments: [first] });
    const edit = (apiKey: string, attachments: string[]) =>
      t.app.inject({
        method: 'PATCH',
        url: `/api/v1/external/reports/submissions/${draft.id}`,
        headers: key(apiKey),
        payload: { attachments },
      });

    const foreign = await edit(company.apiKey, [await uploadedUrl(t, other.apiKey)]);
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json().data.errors[0].field).toBe('attachments/0');
    const tooMany = await edit(company.apiKey, [
      first,
      second,
      await uploadedUrl(t, company.apiKey),
      await uploadedUrl(t, company.apiKey),
    ]);
    expect(tooMany.statusCode).toBe(400);

    const res = await edit(company.apiKey, [first, second]);
    expect(res.statusCode).toBe(200);
    expect(res.json().data.report.attachments).toHaveLength(2);
    const swapped = await edit(company.apiKey, [second]);
    expect(swapped.json().data.report.attachments).toHaveLength(1);

    const idOf = (url: string) => url.split('/').at(-1) as string;
    const rows = await t.database.db
      .selectFrom('uploads')
      .select(['id', 'record_id', 'orphaned_at'])
      .where('id', 'in', [idOf(first), idOf(second)])
      .execute();
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get(idOf(first))).toMatchObject({ record_id: null, orphaned_at: expect.any(Date) });
    expect(byId.get(idOf(second))).toMatchObject({ record_id: draft.id, orphaned_at: null });
    // Another company cannot edit the draft (its id names nothing for them).
    expect((await edit(other.apiKey, [])).statusCode).toBe(404);
  });
});
