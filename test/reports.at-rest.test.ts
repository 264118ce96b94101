import { describe, expect, it } from 'vitest';
import { normalizeIdentifier, shippedBankDirectory } from '../src/identifiers/normalize.js';
import { containsClear, containsDigest, storedPieces, unkeyedDigests } from './helpers/at-rest.js';
import { digits, letters, localPhone, nuban } from './helpers/identifiers.js';
import { createCompany, key } from './helpers/principals.js';
import { reportBody, search } from './helpers/reports.js';
import { buildTestApp } from './helpers/test-app.js';

describe('clear values at rest and in the logs', () => {
  it('leaves no identifier value or API key in the data directory or the log after real requests', {
    timeout: 120_000,
  }, async () => {
    const t = await buildTestApp({ config: { logLevel: 'trace' } });
    const company = await createCompany(t);
    const account = nuban('058');
    const values = {
      account: `${account}_guaranty-trust-bank`,
      bvn: `22${digits(9)}`,
      nin: `7${digits(10)}`,
      phone: localPhone(),
      email: `${letters(11)}@example.com`,
      account_name: `${letters(9)} ${letters(10)}`,
      social_handle: letters(13),
      international_passport: `A${digits(8)}`,
      drivers_license: `${letters(3).toUpperCase()}${digits(5)}AA${digits(2)}`,
    };
    // With an Idempotency-Key, so the stored replay (which repeats the identifiers) is covered too.
    // People type identifiers into the reason too: it is sealed at rest, and the masked copy search shows hides them.
    const reasonAccount = digits(10);
    const reasonMailbox = letters(12);
    const body = reportBody({
      identifiers: Object.entries(values).map(([label, value]) => ({ label, value })),
      fraudReason: `Paid into ${reasonAccount} after mails from ${reasonMailbox}@example.org, then the caller vanished.`,
    });
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/external/reports',
      headers: { ...key(company.apiKey), 'idempotency-key': 'at-rest-probe' },
      payload: body,
    });
    expect(created.statusCode).toBe(201);
    const report = created.json().data;
    for (const [label, value] of Object.entries(values)) {
      expect((await search(t, company.apiKey, label, value)).json().data.summary.totalReports).toBe(1);
    }
    const decoded = await t.app.inject({
      method: 'GET',
      url: `/api/v1/external/reports/submissions/${report.id}/decode`,
      headers: key(company.apiKey),
    });
    expect(decoded.statusCode).toBe(200);
    // A failing request's log lines too: the bad value must not be echoed.
    await search(t, company.apiKey, 'bvn', `${values.bvn}9`);
    // Nor a value an integrator put in a path by mistake (a route that exists, and one that does not),
    // written with separators or percent-encoded.
    const dashedBvn = `${values.bvn.slice(0, 3)}-${values.bvn.slice(3, 7)}-${values.bvn.slice(7)}`;
    const encodedNin = [...values.nin].map((d) => `%${d.charCodeAt(0).toString(16)}`).join('');
    for (const url of [
      `/api/v1/external/reports/submissions/${values.bvn}`,
      `/api/v1/external/reports/submissions/${encodeURIComponent(values.email)}`,
      `/api/v1/lookup/${values.phone}/${values.email}`,
      `/api/v1/lookup/${dashedBvn}`,
      `/api/v1/lookup/${encodedNin}`,
    ]) {
      expect((await t.app.inject({ method: 'GET', url, headers: key(company.apiKey) })).statusCode).toBe(404);
    }
    await t.close({ keepFiles: true });

    // What is looked for: each clear value as sent and as normalised (the distinctive part).
    const needles = [
      account,
      values.bvn,
      values.nin,
      values.phone.slice(1),
      values.email,
      ...values.account_name.split(' '),
      values.social_handle,
      values.international_passport,
      values.drivers_license,
      reasonAccount,
      reasonMailbox.slice(1),
      company.apiKey,
      dashedBvn,
      encodedNin,
    ];
    const logText = t.logLines.join('\n');
    expect(t.logLines.length).toBeGreaterThan(20);
    for (const needle of needles) expect(logText, `log contains ${needle}`).not.toContain(needle);

    const stored = await storedPieces(t);
    expect(stored.length).toBeGreaterThan(10);
    for (const needle of needles) {
      for (const piece of stored) expect(containsClear(piece, needle), `${piece.where} contains ${needle}`).toBe(false);
    }
    // No unkeyed SHA-256 of a value (raw or normalised) or of the request body, raw, hex or base64.
    const banks = shippedBankDirectory();
    const forms = Object.entries(values).flatMap(([label, value]) => {
      const normalized = normalizeIdentifier(label as Parameters<typeof normalizeIdentifier>[0], value, {
        banks,
        purpose: 'store',
      });
      return normalized.ok
        ? [value, normalized.value, normalized.indexValue, ...(normalized.nuban ? [normalized.nuban] : [])]
        : [value];
    });
    const digests = unkeyedDigests(forms, [body]);
    expect(digests.length).toBeGreaterThan(Object.keys(values).length);
    for (const digest of digests) {
      for (const piece of stored) expect(containsDigest(piece, digest), `${piece.where} holds sha256(${digest.of})`).toBe(false);
    }
    // The scan can see text: the company's business name is stored in clear and is found.
    expect(stored.some((piece) => containsClear(piece, company.businessName))).toBe(true);
  });
});
