import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompany, key } from './helpers/principals.js';
import { intake, publicBody, uniquePhone } from './helpers/public-reports.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

let t: TestApp;
let companyKey: string;

beforeAll(async () => {
  t = await buildTestApp();
  companyKey = (await createCompany(t)).apiKey;
});
afterAll(() => t.close());

// Dates that JavaScript's Date would roll over to another day, or that are no ISO date at all.
const IMPOSSIBLE = [
  '2025-02-30',
  '2025-02-29',
  '2025-04-31',
  '2025-13-01',
  '2025-00-10',
  '2025-02-30T10:00:00Z',
  '2025-02-28T24:00:00Z',
  '2025-02-28T23:60:00Z',
  '2025-02-28T10:00:00+25:00',
  '2025-02-28 10:00',
];
const REAL = ['2024-02-29', '2025-02-28', '2025-02-28T23:59:59Z', '2025-12-31T10:00:00.123+01:00'];

describe('one date parser for every date a caller sends', () => {
  it('public intake eventDate, the submissions filters and the audit filters refuse the same impossible dates', async () => {
    for (const value of IMPOSSIBLE) {
      const res = await intake(t, publicBody(uniquePhone(), { eventDate: value }));
      expect(res.statusCode, `eventDate ${value}`).toBe(400);
      expect(res.json().data.errors).toContainEqual({ field: 'eventDate', message: expect.stringContaining('year-month-day') });
      for (const url of ['/api/v1/external/reports/submissions', '/api/v1/external/audit']) {
        for (const field of ['from', 'to']) {
          const listed = await t.app.inject({
            method: 'GET',
            url: `${url}?${field}=${encodeURIComponent(value)}`,
            headers: key(companyKey),
          });
          expect(listed.statusCode, `${url} ${field}=${value}`).toBe(400);
          expect(listed.json().data.errors).toEqual([{ field, message: expect.stringContaining('year-month-day') }]);
        }
      }
    }
  });

  it('and accept the same real ones', async () => {
    for (const value of REAL) {
      const res = await intake(t, publicBody(uniquePhone(), { eventDate: value }));
      expect(res.statusCode, `eventDate ${value}: ${res.body}`).toBe(201);
      for (const url of ['/api/v1/external/reports/submissions', '/api/v1/external/audit']) {
        const listed = await t.app.inject({
          method: 'GET',
          url: `${url}?from=${encodeURIComponent(value)}`,
          headers: key(companyKey),
        });
        expect(listed.statusCode, `${url} from=${value}`).toBe(200);
      }
    }
  });
});
