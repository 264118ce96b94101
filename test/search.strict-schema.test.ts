import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompany, createOperator, key } from './helpers/principals.js';
import { ADMIN, filePublicReport, uniquePhone } from './helpers/public-reports.js';
import { createReport, search } from './helpers/reports.js';
import { matchesSearchSchema } from './helpers/search-schema.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';
import { uploadedUrl } from './helpers/uploads.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

/** Every object inside a JSON value, with its JSON pointer. */
function objectsIn(value: unknown, pointer = ''): Array<{ pointer: string; object: Record<string, unknown> }> {
  if (Array.isArray(value)) return value.flatMap((item, i) => objectsIn(item, `${pointer}/${i}`));
  if (value === null || typeof value !== 'object') return [];
  const object = value as Record<string, unknown>;
  return [{ pointer, object }, ...Object.entries(object).flatMap(([k, v]) => objectsIn(v, `${pointer}/${k}`))];
}

describe("search's body, built in SQL, against a schema strict at every level", () => {
  it('accepts the real body and refuses an extra property injected into any object of it', async () => {
    const company = await createCompany(t);
    const operator = await createOperator(t);
    const phone = uniquePhone();
    await createReport(t, company.apiKey, {
      identifiers: [{ label: 'phone', value: phone }],
      attachments: [await uploadedUrl(t, company.apiKey)],
      showUploaderInfo: true,
    });
    const publicId = await filePublicReport(t, phone);
    const published = await t.app.inject({ method: 'POST', url: `${ADMIN}/${publicId}/publish`, headers: key(operator.apiKey) });
    expect(published.statusCode).toBe(200);

    const body = (await search(t, company.apiKey, 'phone', phone)).json();
    expect(body.data.reports).toHaveLength(1);
    expect(body.data.publicReports).toHaveLength(1);
    expect(matchesSearchSchema(body), JSON.stringify(matchesSearchSchema.errors)).toBe(true);

    // A report's extra column, an identifier's clear value, a stray summary figure, and so on.
    const objects = objectsIn(body);
    const pointers = objects.map((o) => o.pointer);
    expect(pointers).toEqual(expect.arrayContaining(['/data/reports/0/identifiers/0', '/data/summary', '/data/publicReports/0']));
    for (const { pointer, object } of objects) {
      // A map's keys are data (fraud type → count): an extra key there is another count, not a leak.
      if (pointer === '/data/summary/fraudTypes') continue;
      const injected = pointer.endsWith('/identifiers/0') ? 'clearValue' : 'extraColumn';
      object[injected] = 'leak';
      expect(matchesSearchSchema(body), `${pointer}/${injected} passed the schema`).toBe(false);
      delete object[injected];
    }
    expect(matchesSearchSchema(body)).toBe(true);
  });
});
