import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evidenceKey } from '../src/crypto/load-crypto.js';
import { createDatabaseBlobStore } from '../src/modules/uploads/storage/database-blob-store.js';
import { createUploadUrls } from '../src/modules/uploads/upload-urls.js';
import { createUploadsService } from '../src/modules/uploads/uploads.service.js';
import { createCompany, createOperator, key } from './helpers/principals.js';
import { reportBody } from './helpers/reports.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';
import { multipart, pathOf, samples, uploadFile } from './helpers/uploads.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ config: { publicUploadsPerHour: 3 } });
});
afterAll(() => t.close());

const MIB5 = 5 * 1024 * 1024;
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('POST /api/v1/external/uploads', () => {
  it.each([
    ['pdf', 'application/pdf', 'statement.pdf'],
    ['png', 'image/png', 'screenshot.png'],
    ['jpeg', 'image/jpeg', 'photo.jpg'],
    ['webp', 'image/webp', 'chat.webp'],
  ] as const)('accepts a %s file, recognised by its bytes', async (kind, contentType, filename) => {
    const company = await createCompany(t);
    const bytes = samples[kind]();
    const res = await uploadFile(t, company.apiKey, bytes, { filename, contentType: 'application/octet-stream' });
    expect(res.statusCode).toBe(201);
    const { data } = res.json();
    expect(data).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      url: `${t.config.publicUrl}/api/v1/external/uploads/${data.id}`,
      contentType,
      size: bytes.length,
      sha256: sha256(bytes),
    });
    const stored = await t.database.db.selectFrom('uploads').selectAll().where('id', '=', data.id).executeTakeFirstOrThrow();
    expect(stored).toMatchObject({
      company_id: company.companyId,
      content_type: contentType,
      size: bytes.length,
      record_id: null,
    });
    expect(stored.storage_key).not.toContain(filename);
    const blob = await t.database.db
      .selectFrom('upload_blobs')
      .select('data')
      .where('key', '=', stored.storage_key)
      .executeTakeFirstOrThrow();
    expect(Buffer.from(blob.data).equals(bytes)).toBe(true);
  });

  it('takes a PDF named .png and declared image/png for the PDF it is', async () => {
    const company = await createCompany(t);
    const res = await uploadFile(t, company.apiKey, samples.pdf(), { filename: 'photo.png', contentType: 'image/png' });
    expect(res.statusCode).toBe(201);
    expect(res.json().data.contentType).toBe('application/pdf');
  });

  it.each([
    ['an ELF executable', 'elf', /ELF executable/],
    ['a Windows (PE) executable', 'pe', /Windows executable/],
    ['a shell script', 'script', /script/],
    ['a text file', 'text', /not a PDF, PNG, JPEG or WebP/],
  ] as const)('refuses %s named .pdf and declared application/pdf with 415', async (_name, kind, message) => {
    const company = await createCompany(t);
    const res = await uploadFile(t, company.apiKey, samples[kind](), { filename: 'invoice.pdf', contentType: 'application/pdf' });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toMatchObject({
      success: false,
      message: expect.stringMatching(message),
      data: { code: 'UNSUPPORTED_MEDIA_TYPE' },
    });
    const count = await t.database.db
      .selectFrom('uploads')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('company_id', '=', company.companyId)
      .executeTakeFirstOrThrow();
    expect(count.n).toBe(0);
  });

  it('accepts exactly 5 MiB and refuses 5 MiB + 1 byte with 413', async () => {
    const company = await createCompany(t);
    const pdf = (size: number) => {
      const bytes = Buffer.alloc(size, 0x20);
      bytes.write('%PDF-1.7\n', 0, 'latin1');
      bytes.write('%%EOF\n', size - 6, 'latin1');
      return bytes;
    };
    const big = pdf(MIB5);
    const fits = await uploadFile(t, company.apiKey, big, { filename: 'big.pdf' });
    expect(fits.statusCode).toBe(201);
    expect(fits.json().data).toMatchObject({ size: 5_242_880, sha256: sha256(big) });
    // Stored in 1 MiB slices, served whole.
    const slices = await t.database.db
      .selectFrom('upload_blobs')
      .innerJoin('uploads', 'uploads.storage_key', 'upload_blobs.key')
      .select('upload_blobs.seq')
      .where('uploads.id', '=', fits.json().data.id)
      .orderBy('upload_blobs.seq')
      .execute();
    expect(slices.map((r) => r.seq)).toEqual([0, 1, 2, 3, 4]);
    const detail = await t.app.inject({ method: 'GET', url: pathOf(fits.json().data.url), headers: key(company.apiKey) });
    const downloaded = await t.app.inject({ method: 'GET', url: pathOf(detail.json().data.downloadUrl) });
    expect(downloaded.rawPayload.equals(big)).toBe(true);

    const over = await uploadFile(t, company.apiKey, pdf(MIB5 + 1), { filename: 'bigger.pdf' });
    expect(over.statusCode).toBe(413);
    expect(over.json().data.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('refuses 5 MiB + 1 byte sent chunked, with no Content-Length to go by', async () => {
    const company = await createCompany(t);
    const file = Buffer.alloc(MIB5 + 1, 0x20);
    file.write('%PDF-1.7\n', 0, 'latin1');
    const body = multipart([{ name: 'file', filename: 'chunked.pdf', data: file }]);
    // 64 KiB pieces, as a slow client would send them.
    const pieces = Array.from({ length: Math.ceil(body.payload.length / 65_536) }, (_, i) =>
      body.payload.subarray(i * 65_536, (i + 1) * 65_536),
    );
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/external/uploads',
      headers: { ...body.headers, ...key(company.apiKey) },
      payload: Readable.from(pieces),
    });
    expect(res.statusCode).toBe(413);
    expect(res.json().data.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('refuses a body declared larger than the limit before reading it, and closes the connection if it is huge', async () => {
    const company = await createCompany(t);
    const body = multipart([{ name: 'file', filename: 'a.pdf', data: samples.pdf() }]);
    const declaring = (bytes: number) =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/external/uploads',
        headers: { ...body.headers, ...key(company.apiKey), 'content-length': String(bytes) },
        payload: body.payload,
      });
    const over = await declaring(MIB5 + 64 * 1024);
    expect(over.statusCode).toBe(413);
    expect(over.headers.connection).not.toBe('close');
    const huge = await declaring(MIB5 * 20);
    expect(huge.statusCode).toBe(413);
    expect(huge.headers.connection).toBe('close');
  });

  it('wants exactly one file in the field "file"', async () => {
    const company = await createCompany(t);
    const send = (parts: Parameters<typeof multipart>[0]) => {
      const body = multipart(parts);
      return t.app.inject({
        method: 'POST',
        url: '/api/v1/external/uploads',
        headers: { ...body.headers, ...key(company.apiKey) },
        payload: body.payload,
      });
    };
    const wrongField = await send([{ name: 'document', filename: 'a.pdf', data: samples.pdf() }]);
    expect(wrongField.statusCode).toBe(400);
    expect(wrongField.json().data.errors).toEqual([{ field: 'file', message: expect.stringContaining('"file"') }]);

    const two = await send([
      { name: 'file', filename: 'a.pdf', data: samples.pdf() },
      { name: 'file', filename: 'b.pdf', data: samples.pdf() },
    ]);
    expect(two.statusCode).toBe(400);
    expect(two.json().data.errors[0].field).toBe('file');

    const withField = await send([
      { name: 'note', data: 'hello' },
      { name: 'file', filename: 'a.pdf', data: samples.pdf() },
    ]);
    expect(withField.statusCode).toBe(400);

    const none = await send([]);
    expect(none.statusCode).toBe(400);
    expect(none.json().data.errors).toEqual([{ field: 'file', message: expect.stringContaining('required') }]);

    const empty = await send([{ name: 'file', filename: 'a.pdf', data: Buffer.alloc(0) }]);
    expect(empty.statusCode).toBe(400);
    expect(empty.json().data.errors).toEqual([{ field: 'file', message: 'is empty' }]);

    const stored = await t.database.db
      .selectFrom('uploads')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('company_id', '=', company.companyId)
      .executeTakeFirstOrThrow();
    expect(stored.n).toBe(0);
  });

  it('answers a JSON body with 415 and a multipart body elsewhere with 415', async () => {
    const company = await createCompany(t);
    const json = await t.app.inject({
      method: 'POST',
      url: '/api/v1/external/uploads',
      headers: key(company.apiKey),
      payload: { file: 'JVBERi0=' },
    });
    expect(json.statusCode).toBe(415);
    expect(json.json().data.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    const body = multipart([{ name: 'file', filename: 'a.pdf', data: samples.pdf() }]);
    const elsewhere = await t.app.inject({
      method: 'POST',
      url: '/api/v1/external/reports',
      headers: { ...body.headers, ...key(company.apiKey) },
      payload: body.payload,
    });
    expect(elsewhere.statusCode).toBe(415);
  });

  it('needs a company key: none is 401, an operator key is 403', async () => {
    expect((await uploadFile(t, undefined, samples.pdf())).statusCode).toBe(401);
    const operator = await createOperator(t);
    const res = await uploadFile(t, operator.apiKey, samples.pdf());
    expect(res.statusCode).toBe(403);
    expect(res.json().data.code).toBe('FORBIDDEN');
  });
});

describe('GET /api/v1/external/uploads/{id}', () => {
  it("shows a company its own upload with a working download link, and another company's as 404", async () => {
    const owner = await createCompany(t);
    const other = await createCompany(t);
    const bytes = samples.png();
    const { id, url } = (await uploadFile(t, owner.apiKey, bytes)).json().data;
    const own = await t.app.inject({ method: 'GET', url: pathOf(url), headers: key(owner.apiKey) });
    expect(own.statusCode).toBe(200);
    expect(own.json().data).toMatchObject({ id, contentType: 'image/png', size: bytes.length, attached: false });
    const download = await t.app.inject({ method: 'GET', url: pathOf(own.json().data.downloadUrl) });
    expect(download.statusCode).toBe(200);
    expect(download.rawPayload.equals(bytes)).toBe(true);

    const foreign = await t.app.inject({ method: 'GET', url: pathOf(url), headers: key(other.apiKey) });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().data.code).toBe('NOT_FOUND');
    const junk = await t.app.inject({ method: 'GET', url: '/api/v1/external/uploads/not-an-id', headers: key(owner.apiKey) });
    expect(junk.statusCode).toBe(404);
  });
});

describe('POST /api/v1/public/uploads', () => {
  it('takes a file without a key, checks it the same way, and limits each address', async () => {
    const from = (data: Buffer, remoteAddress: string) =>
      uploadFile(t, undefined, data, { url: '/api/v1/public/uploads', remoteAddress });
    const first = await from(samples.jpeg(), '198.51.100.20');
    expect(first.statusCode).toBe(201);
    expect(first.json().data).toMatchObject({
      contentType: 'image/jpeg',
      url: expect.stringMatching(new RegExp(`^${t.config.publicUrl}/api/v1/public/uploads/[0-9a-f-]{36}$`)),
    });
    expect(first.headers['ratelimit-limit']).toBe('3');
    // A refused file is given back: the limit counts accepted files.
    expect((await from(samples.elf(), '198.51.100.20')).statusCode).toBe(415);
    expect((await from(samples.pdf(), '198.51.100.20')).statusCode).toBe(201);
    expect((await from(samples.png(), '198.51.100.20')).statusCode).toBe(201);
    const limited = await from(samples.pdf(), '198.51.100.20');
    expect(limited.statusCode).toBe(429);
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(limited.json()).toMatchObject({
      message: expect.stringContaining('3 requests an hour'),
      data: { code: 'RATE_LIMITED', retryAfter },
    });
    expect((await from(samples.pdf(), '198.51.100.21')).statusCode).toBe(201);

    const owner = await t.database.db
      .selectFrom('uploads')
      .select('company_id')
      .where('id', '=', first.json().data.id)
      .executeTakeFirstOrThrow();
    expect(owner.company_id).toBe('00000000-0000-4000-8000-000000000001');
  });
});

describe('the sweeper', () => {
  it('removes uploads left unattached for 24 hours, with their bytes, and keeps newer and attached ones', async () => {
    const company = await createCompany(t);
    const old = (await uploadFile(t, company.apiKey, samples.pdf())).json().data;
    const fresh = (await uploadFile(t, company.apiKey, samples.pdf())).json().data;
    const kept = (await uploadFile(t, company.apiKey, samples.png())).json().data;
    const report = await t.app.inject({
      method: 'POST',
      url: '/api/v1/external/reports',
      headers: key(company.apiKey),
      payload: reportBody({ attachments: [kept.url] }),
    });
    expect(report.statusCode).toBe(201);
    // Attached long ago: the sweeper must not care how old it is.
    await t.database.db
      .updateTable('uploads')
      .set({ created_at: sql<Date>`now() - interval '30 days'` })
      .where('id', '=', kept.id)
      .execute();
    await t.database.db
      .updateTable('uploads')
      .set({ orphaned_at: sql<Date>`now() - interval '24 hours 1 minute'` })
      .where('id', '=', old.id)
      .execute();
    const keys = await t.database.db
      .selectFrom('uploads')
      .select(['id', 'storage_key'])
      .where('id', 'in', [old.id, fresh.id])
      .execute();

    // The service the app's hourly timer calls, built on the same database.
    const sweeper = createUploadsService({
      db: t.database.db,
      store: createDatabaseBlobStore(t.database.db),
      urls: createUploadUrls({ publicUrl: t.config.publicUrl, signer: t.app.crypto.urlSigner, ttlSeconds: 900 }),
      maxBytes: t.config.uploadMaxBytes,
      evidenceKey: evidenceKey(t.app.crypto),
    });
    expect(await sweeper.sweep()).toBeGreaterThanOrEqual(1);

    const left = await t.database.db.selectFrom('uploads').select('id').where('id', 'in', [old.id, fresh.id, kept.id]).execute();
    expect(left.map((r) => r.id).sort()).toEqual([fresh.id, kept.id].sort());
    const blobs = await t.database.db
      .selectFrom('upload_blobs')
      .select('key')
      .where(
        'key',
        'in',
        keys.map((k) => k.storage_key),
      )
      .execute();
    expect(blobs.map((b) => b.key)).toEqual([keys.find((k) => k.id === fresh.id)?.storage_key]);
  });
});
