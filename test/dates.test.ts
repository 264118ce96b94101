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
// Each with what the answer says: a date written the right way that does not exist is told so.
const IMPOSSIBLE: Array<[string, string]> = [
  ['2025-02-30', 'is not a day of the calendar: February 2025 has 28 days'],
  ['2025-02-29', 'is not a day of the calendar: February 2025 has 28 days'],
  ['2025-04-31', 'is not a day of the calendar: April 2025 has 30 days'],
  ['2025-13-01', 'has no month 13: months run from 01 to 12'],
  ['2025-00-10', 'has no month 00: months run from 01 to 12'],
  ['2025-02-30T10:00:00Z', 'is not a day of the calendar: February 2025 has 28 days'],
  ['2025-02-28T24:00:00Z', 'has a time that does not exist'],
  ['2025-02-28T23:60:00Z', 'has a time that does not exist'],
  ['2025-02-28T10:00:00+25:00', 'has a time-zone offset that does not exist'],
  ['2025-02-28 10:00', 'year-month-day'],
];
const REAL = ['2024-02-29', '2025-02-28', '2025-02-28T23:59:59Z', '2025-12-31T10:00:00.123+01:00'];

describe('one date parser for every date a caller sends', () => {
  it('public intake eventDate, the submissions filters and the audit filters refuse the same impossible dates', async () => {
    for (const [value, why] of IMPOSSIBLE) {
      const res = await intake(t, publicBody(uniquePhone(), { eventDate: value }));
      expect(res.statusCode, `eventDate ${value}`).toBe(400);
      expect(res.json().data.errors).toContainEqual({ field: 'eventDate', message: expect.stringContaining(why) });
      for (const url of ['/api/v1/external/reports/submissions', '/api/v1/external/audit']) {
        for (const field of ['from', 'to']) {
          const listed = await t.app.inject({
            method: 'GET',
            url: `${url}?${field}=${encodeURIComponent(value)}`,
            headers: key(companyKey),
          });
          expect(listed.statusCode, `${url} ${field}=${value}`).toBe(400);
          expect(listed.json().data.errors).toEqual([{ field, message: expect.stringContaining(why) }]);
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
