import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkStructure } from '../src/modules/uploads/content-type.js';
import { createCompany } from './helpers/principals.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';
import { samples, uploadFile } from './helpers/uploads.js';

/** The hostile set of issue 12 (test/fixtures/hostile/make-hostile.mjs): each PDF passes `qpdf --check`. */
const FIXTURES = path.join(import.meta.dirname, 'fixtures', 'hostile');
const hostile = {
  'pdf-hex-escaped-names.pdf': 'application/pdf',
  'pdf-action-in-object-stream.pdf': 'application/pdf',
  'pdf-action-between-stream-strings.pdf': 'application/pdf',
  'jpeg-html-zip-polyglot.jpg': 'image/jpeg',
} as const;
const read = (name: string) => fs.readFileSync(path.join(FIXTURES, name));

let t: TestApp;
let company: Awaited<ReturnType<typeof createCompany>>;
beforeAll(async () => {
  t = await buildTestApp({ config: { publicUploadsPerHour: 100 } });
  company = await createCompany(t);
});
afterAll(() => t.close());

describe('the hostile evidence set', () => {
  it('is refused by the structure check, each for what it hides', async () => {
    const reasons: Record<string, string> = {};
    for (const [name, type] of Object.entries(hostile)) {
      const verdict = await checkStructure(type, read(name));
      expect(verdict.ok, name).toBe(false);
      if (!verdict.ok) reasons[name] = verdict.message;
    }
    // /S /J#61vaScript is read as the action /JavaScript.
    expect(reasons['pdf-hex-escaped-names.pdf']).toContain('active content (/JavaScript)');
    expect(reasons['pdf-action-in-object-stream.pdf']).toContain('active content');
    expect(reasons['pdf-action-between-stream-strings.pdf']).toContain('active content');
    expect(reasons['jpeg-html-zip-polyglot.jpg']).toMatch(/ZIP archive|web page/);
  });

  it('is refused with 415 on the company and the anonymous public upload alike', async () => {
    let refused = 0;
    for (const name of Object.keys(hostile)) {
      for (const [url, apiKey] of [
        ['/api/v1/external/uploads', company.apiKey],
        ['/api/v1/public/uploads', undefined],
      ] as const) {
        const res = await uploadFile(t, apiKey, read(name), { url, filename: name, remoteAddress: '203.0.113.9' });
        expect(res.statusCode, `${name} on ${url}`).toBe(415);
        expect(res.json().data.code).toBe('UNSUPPORTED_MEDIA_TYPE');
        refused++;
      }
    }
    expect(refused).toBe(8);
    // The same base JPEG without its HTML and ZIP is accepted: the refusal is about what was added.
    const accepted = await uploadFile(t, company.apiKey, samples.jpeg());
    expect(accepted.statusCode).toBe(201);
  });

  it('each hidden thing alone is enough: the JPEG with only the ZIP, or only the HTML', async () => {
    const polyglot = read('jpeg-html-zip-polyglot.jpg');
    const htmlEnd = polyglot.indexOf('</html>') + '</html>'.length;
    const zipStart = polyglot.indexOf('PK\x03\x04');
    const zipOnly = Buffer.concat([polyglot.subarray(0, 2), polyglot.subarray(htmlEnd)]);
    const htmlOnly = polyglot.subarray(0, zipStart);
    expect(await checkStructure('image/jpeg', zipOnly)).toMatchObject({ ok: false, message: expect.stringContaining('ZIP') });
    expect(await checkStructure('image/jpeg', htmlOnly)).toMatchObject({
      ok: false,
      message: expect.stringContaining('web page'),
    });
    expect(
      await checkStructure('image/jpeg', Buffer.concat([polyglot.subarray(0, 2), polyglot.subarray(htmlEnd, zipStart)])),
    ).toEqual({
      ok: true,
    });
  });
});
