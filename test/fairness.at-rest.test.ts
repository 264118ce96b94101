import { describe, expect, it } from 'vitest';
import { expectNoneStored } from './helpers/at-rest.js';
import { digits, letters, localPhone, nuban } from './helpers/identifiers.js';
import { createCompany, createOperator, key } from './helpers/principals.js';
import { createReport } from './helpers/reports.js';
import { buildTestApp } from './helpers/test-app.js';

describe('safelist and disputes at rest', () => {
  it('stores safelisted values as blind indexes only: no clear value in the database or the log', {
    timeout: 120_000,
  }, async () => {
    const t = await buildTestApp({ config: { logLevel: 'trace', jobTickSeconds: 0 } });
    const operator = await createOperator(t);
    const [owner, disputer] = [await createCompany(t), await createCompany(t)];
    const account = nuban('058');
    const values: Record<string, string> = {
      account: `${account}_guaranty-trust-bank`,
      bvn: `22${digits(9)}`,
      phone: localPhone(),
      email: `${letters(11)}@example.com`,
      account_name: `${letters(9)} ${letters(10)}`,
    };
    for (const [label, value] of Object.entries(values)) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/admin/safelist',
        headers: key(operator.apiKey),
        payload: { label, value, reason: 'A settlement account of a member bank' },
      });
      expect(res.statusCode, res.body).toBe(201);
    }
    // The entry is the same blind index a report would store: a create with the value is refused.
    const refused = await t.app.inject({
      method: 'POST',
      url: '/api/v1/external/reports',
      headers: key(owner.apiKey),
      payload: {
        fraudType: 'other',
        fraudReason: 'x'.repeat(60),
        identifiers: [{ label: 'bvn', value: values.bvn }],
      },
    });
    expect(refused.statusCode).toBe(422);
    const disputedPhone = localPhone();
    const report = await createReport(t, owner.apiKey, { identifiers: [{ label: 'phone', value: disputedPhone }] });
    const dispute = await t.app.inject({
      method: 'POST',
      url: '/api/v1/external/disputes',
      headers: key(disputer.apiKey),
      payload: { reportId: report.id, reason: `Our customer, reachable on ${'y'.repeat(40)}, disputes it` },
    });
    expect(dispute.statusCode, dispute.body).toBe(201);
    await t.close({ keepFiles: true });

    const needles = [
      account,
      values.bvn as string,
      (values.phone as string).slice(1),
      values.email as string,
      ...(values.account_name as string).split(' '),
      disputedPhone.slice(1),
    ];
    // The safelist's reason (decision 0135) and a dispute's (decision 0130) are sealed too.
    await expectNoneStored(t, [...needles, 'A settlement account of a member bank', 'y'.repeat(40)], owner.businessName);
  });
});
