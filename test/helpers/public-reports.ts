import { REASON } from './reports.js';
import type { TestApp } from './test-app.js';

export const ADMIN = '/api/v1/admin/public-reports';
export const yesterday = () => new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);

/** Each intake from its own address, so the per-address limit only bites where a test wants it. */
let address = 0;
export const nextAddress = () => `198.51.100.${(++address % 250) + 1}`;

let serial = 2_000_000 + (process.pid % 1000) * 1000;
export const uniquePhone = () => `0805${String(++serial).padStart(7, '0')}`;

/** A valid public report about `phone`, with a victim and a guest; `overrides` replace fields whole. */
export function publicBody(phone: string, overrides: Record<string, unknown> = {}) {
  return {
    reportingEntity: 'self',
    fraudType: 'romance_fraud',
    fraudReason: REASON,
    financialInstitution: '  Access   Bank ',
    eventDate: yesterday(),
    identifiers: [{ label: 'phone', value: phone }],
    victim: { name: 'Jane  Doe', email: 'Jane.Doe@Example.com', phone: '0803 123 4567', amountLost: 250000, currency: 'NGN' },
    guestInfo: { name: 'Ola Ade', email: 'ola@example.org', phone: '+234 (0) 809 876 5432' },
    ...overrides,
  };
}

export const intake = (t: TestApp, payload: Record<string, unknown>, remoteAddress = nextAddress()) =>
  t.app.inject({ method: 'POST', url: '/api/v1/public/reports', payload, remoteAddress });

/** Files a public report and returns its id (fails the test otherwise). */
export async function filePublicReport(t: TestApp, phone: string, overrides: Record<string, unknown> = {}): Promise<string> {
  const res = await intake(t, publicBody(phone, overrides));
  if (res.statusCode !== 201) throw new Error(`intake failed ${res.statusCode}: ${res.body}`);
  return res.json().data.id;
}
