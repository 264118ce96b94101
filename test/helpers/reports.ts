import type { TestApp } from './test-app.js';

export const REASON = 'Customer opened the account with a forged utility bill and moved funds out within hours.';

/** A valid create body; `overrides` replace fields whole. */
export function reportBody(overrides: Record<string, unknown> = {}) {
  return {
    fraudType: 'money_mule',
    fraudReason: REASON,
    identifiers: [
      { label: 'phone', value: '0803 123 4567' },
      { label: 'email', value: 'Mule.Account@Example.com' },
    ],
    ...overrides,
  };
}

/** Creates a report through HTTP and returns the Created report. */
export async function createReport(t: TestApp, apiKey: string, overrides: Record<string, unknown> = {}) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/external/reports',
    headers: { 'x-api-key': apiKey },
    payload: reportBody(overrides),
  });
  if (res.statusCode !== 201) throw new Error(`create failed ${res.statusCode}: ${res.body}`);
  return res.json().data;
}

export async function search(t: TestApp, apiKey: string, identifier: string, value: string, url = '/reports/search') {
  return t.app.inject({ method: 'POST', url, headers: { 'x-api-key': apiKey }, payload: { identifier, value } });
}
