import { describe, expect, it } from 'vitest';
import { containsClear, containsDigest, storedPieces, unkeyedDigests } from './helpers/at-rest.js';
import { digits, letters, localPhone } from './helpers/identifiers.js';
import { createCompany, createOperator, key } from './helpers/principals.js';
import { ADMIN, publicBody } from './helpers/public-reports.js';
import { search } from './helpers/reports.js';
import { buildTestApp } from './helpers/test-app.js';

describe('public reports: clear values at rest and in the logs', () => {
  it('leaves no identifier or contact detail in clear in the data directory or the log', { timeout: 120_000 }, async () => {
    const t = await buildTestApp({ config: { logLevel: 'trace' } });
    const operator = await createOperator(t);
    const company = await createCompany(t);
    const bvn = `22${digits(9)}`;
    const victimEmail = `${letters(12)}@example.com`;
    const victimPhone = localPhone();
    const guestEmail = `${letters(12)}@example.org`;
    const guestPhone = localPhone();
    const victimName = `${letters(9)} ${letters(10)}`;
    const guestName = `${letters(9)} ${letters(10)}`;
    const reasonAccount = digits(10);
    // Typed beside the bank's name, which every member reads: masked like a reason.
    const bankAccount = digits(10);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/public/reports',
      remoteAddress: '192.0.2.10',
      payload: publicBody(victimPhone, {
        identifiers: [{ label: 'bvn', value: bvn }],
        victim: { name: victimName, email: victimEmail, phone: victimPhone },
        guestInfo: { name: guestName, email: guestEmail, phone: guestPhone },
        fraudReason: `He asked me to pay into ${reasonAccount} for a parcel that never came, then blocked me.`,
        financialInstitution: `Access Bank acct ${bankAccount}`,
      }),
    });
    expect(res.statusCode).toBe(201);
    const { id } = res.json().data;
    const headers = key(operator.apiKey);
    expect((await t.app.inject({ method: 'POST', url: `${ADMIN}/${id}/publish`, headers })).statusCode).toBe(200);
    const decoded = await t.app.inject({ method: 'GET', url: `${ADMIN}/${id}`, headers });
    expect(decoded.json().data.report.victim.email).toBe(victimEmail);
    const found = await search(t, company.apiKey, 'bvn', bvn);
    expect(found.json().data.publicReports[0].victim.email).toMatch(/^.\*\*\*@example\.com$/);
    expect(found.json().data.publicReports[0].financialInstitution).toBe(`Access Bank acct ********${bankAccount.slice(-2)}`);
    expect(found.json().data.publicReports[0].victim.name).toBe(`${victimName[0]}*** ${victimName.split(' ')[1]?.[0]}***`);
    await t.close({ keepFiles: true });

    // Each value as sent and as normalised (the national number of a phone is in both forms).
    const needles = [
      bvn,
      victimEmail,
      guestEmail,
      victimPhone.slice(1),
      guestPhone.slice(1),
      ...victimName.split(' '),
      ...guestName.split(' '),
      reasonAccount,
      bankAccount,
      operator.apiKey,
    ];
    const logText = t.logLines.join('\n');
    expect(t.logLines.length).toBeGreaterThan(5);
    for (const needle of needles) expect(logText, `log contains ${needle}`).not.toContain(needle);

    const stored = await storedPieces(t);
    expect(stored.length).toBeGreaterThan(10);
    for (const needle of needles) {
      for (const piece of stored) expect(containsClear(piece, needle), `${piece.where} contains ${needle}`).toBe(false);
    }
    // Nor an unkeyed SHA-256 of any of them (as sent, normalised to +234, lower-cased); an API key
    // is stored as its SHA-256 by design (30 random base62 characters cannot be guessed).
    const phones = [victimPhone, guestPhone].flatMap((phone) => [phone, `+234${phone.slice(1)}`]);
    for (const digest of unkeyedDigests([...needles.filter((n) => n !== operator.apiKey), victimName, guestName, ...phones])) {
      for (const piece of stored) expect(containsDigest(piece, digest), `${piece.where} holds sha256(${digest.of})`).toBe(false);
    }
    // The scan can see text: the masked copy search shows is stored in clear and is found.
    expect(stored.some((piece) => containsClear(piece, `${victimEmail.slice(0, 1)}***@example.com`))).toBe(true);
  });
});
