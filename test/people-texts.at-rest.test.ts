import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { sealClearTexts } from '../src/crypto/seal-clear-texts.js';
import { expectNoneStored } from './helpers/at-rest.js';
import { movableClock } from './helpers/clock.js';
import { digits, letters, localPhone, nuban } from './helpers/identifiers.js';
import { createCompany, createOperator, key } from './helpers/principals.js';
import { filePublicReport } from './helpers/public-reports.js';
import { createReport } from './helpers/reports.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

const DISPUTES = '/api/v1/external/disputes';
const SUBMISSIONS = '/api/v1/external/reports/submissions';
const PADDING = 'which we checked with the customer in branch and on the telephone';

/** A company, another that disputes, and the operators, on an app whose clock the test moves. */
async function parties(t: TestApp) {
  return { owner: await createCompany(t), disputer: await createCompany(t), operator: await createOperator(t) };
}

async function post(t: TestApp, apiKey: string, url: string, payload?: object) {
  const res = await t.app.inject({ method: 'POST', url, headers: key(apiKey), ...(payload ? { payload } : {}) });
  expect(res.statusCode, `${url}: ${res.body}`).toBeLessThan(300);
  return res.json().data;
}

const submission = async (t: TestApp, apiKey: string, id: string) =>
  (await t.app.inject({ url: `${SUBMISSIONS}/${id}`, headers: key(apiKey) })).json().data.report;

/**
 * Every kind of people's words about a report, each naming an identifier: a dispute's reason, the
 * owner's statement, the operators' decision (which becomes the exit reason, masked), an owner's
 * exit answer, a member's own exit and a renewal statement. Returns what each named.
 */
async function writeEveryText(t: TestApp, clock: ReturnType<typeof movableClock>) {
  const { owner, disputer, operator } = await parties(t);
  const named = {
    disputeBvn: `22${digits(9)}`,
    statementEmail: `${letters(10)}@yahoo.com`,
    decisionPhone: localPhone(),
    exitAnswerBvn: `22${digits(9)}`,
    ownExitNuban: nuban('058'),
    renewalPhone: localPhone(),
    rejectionBvn: `22${digits(9)}`,
  };
  const [decided, answered, exited, renewed] = [
    await createReport(t, owner.apiKey),
    await createReport(t, owner.apiKey),
    await createReport(t, owner.apiKey),
    await createReport(t, owner.apiKey),
  ];

  const { dispute } = await post(t, disputer.apiKey, DISPUTES, {
    reportId: decided.id,
    reason: `The customer's BVN is ${named.disputeBvn}, ${PADDING}.`,
  });
  await post(t, owner.apiKey, `${DISPUTES}/${dispute.id}/uphold`, {
    statement: `The funds went to ${named.statementEmail} within minutes, ${PADDING}.`,
  });
  await post(t, disputer.apiKey, `${DISPUTES}/${dispute.id}/escalate`);
  await post(t, operator.apiKey, `/api/v1/admin/disputes/${dispute.id}/decide`, {
    outcome: 'remove',
    reason: `The line ${named.decisionPhone} belongs to the customer, ${PADDING}.`,
  });

  const second = await post(t, disputer.apiKey, DISPUTES, { reportId: answered.id, reason: `Disputed, ${PADDING}.` });
  await post(t, owner.apiKey, `${DISPUTES}/${second.dispute.id}/exit`, {
    reason: `Cleared: BVN ${named.exitAnswerBvn} verified, ${PADDING}.`,
  });
  await post(t, owner.apiKey, `${SUBMISSIONS}/${exited.id}/exit`, {
    reason: `Account ${named.ownExitNuban} was repaid in full.`,
  });
  // The listing period is REDFLAG_LISTING_DAYS (91 here): renewable from its second day.
  clock.advanceDays(2);
  await post(t, owner.apiKey, `${SUBMISSIONS}/${renewed.id}/renew`, {
    statement: `Still under investigation; the mule answers on ${named.renewalPhone} and keeps moving funds.`,
  });
  // The operators' reason for rejecting a public report.
  const publicReportId = await filePublicReport(t, localPhone());
  await post(t, operator.apiKey, `/api/v1/admin/public-reports/${publicReportId}/reject`, {
    reason: `A duplicate of one naming BVN ${named.rejectionBvn}.`,
  });
  return {
    owner,
    disputer,
    operator,
    named,
    reports: { decided, answered, exited, renewed },
    disputeId: dispute.id,
    publicReportId,
  };
}

describe("people's words about a report, at rest", () => {
  it('are stored sealed: no identifier typed into them is in the database or the log, and each reader reads them as before', {
    timeout: 120_000,
  }, async () => {
    const clock = movableClock();
    const t = await buildTestApp({ clock, config: { logLevel: 'trace', jobTickSeconds: 0, listingDays: 91 } });
    const { owner, disputer, operator, named, reports, disputeId, publicReportId } = await writeEveryText(t, clock);
    const rejected = await t.app.inject({
      url: `/api/v1/admin/public-reports/${publicReportId}`,
      headers: key(operator.apiKey),
    });
    expect(rejected.json().data.report.rejectionReason).toBe(`A duplicate of one naming BVN ${named.rejectionBvn}.`);

    // The operators read the dispute whole; the owner its own statement whole, the disputer's BVN masked.
    const asOperators = (await t.app.inject({ url: '/api/v1/admin/disputes?limit=100', headers: key(operator.apiKey) })).body;
    for (const value of [named.disputeBvn, named.statementEmail, named.decisionPhone]) expect(asOperators).toContain(value);
    const asOwner = (await t.app.inject({ url: `${DISPUTES}/${disputeId}`, headers: key(owner.apiKey) })).json().data.dispute;
    expect(asOwner.ownerStatement).toContain(named.statementEmail);
    expect(asOwner.reason).not.toContain(named.disputeBvn);
    expect(asOwner.reason).toContain(`*********${named.disputeBvn.slice(-2)}`);
    const asDisputer = (await t.app.inject({ url: `${DISPUTES}/${disputeId}`, headers: key(disputer.apiKey) })).json().data
      .dispute;
    expect(asDisputer.reason).toContain(named.disputeBvn);

    // The exit reasons: the operators' decision as the owner reads it (masked), the owner's own words whole.
    const decided = await submission(t, owner.apiKey, reports.decided.id);
    expect(decided).toMatchObject({ listingStatus: 'exited', exitedBy: 'dispute' });
    expect(decided.exitListReason).toContain('The line ');
    expect(decided.exitListReason).not.toContain(named.decisionPhone.slice(1));
    expect((await submission(t, owner.apiKey, reports.answered.id)).exitListReason).toContain(named.exitAnswerBvn);
    expect(await submission(t, owner.apiKey, reports.exited.id)).toMatchObject({
      exitListReason: `Account ${named.ownExitNuban} was repaid in full.`,
      exitedBy: 'member',
    });
    await t.close({ keepFiles: true });

    const needles = Object.values(named).map((value) => (value.startsWith('0') ? value.slice(1) : value));
    await expectNoneStored(t, needles, owner.businessName);
  });

  it('written in clear by an earlier version are sealed once at start-up, read the same, and a fixed phrase of the service stays', async () => {
    const clock = movableClock();
    const t = await buildTestApp({ clock, config: { jobTickSeconds: 0, listingDays: 91 } });
    try {
      const { owner, disputer, named, reports, disputeId } = await writeEveryText(t, clock);
      const readAll = async () => ({
        dispute: (await t.app.inject({ url: `${DISPUTES}/${disputeId}`, headers: key(disputer.apiKey) })).json().data.dispute,
        reports: await Promise.all(Object.values(reports).map((r) => submission(t, owner.apiKey, r.id))),
      });
      const before = await readAll();
      const db = t.database.db;

      // As a version before migration 0032 left them: the words in the clear columns, no tokens.
      const statement = `Still under investigation; the mule answers on ${named.renewalPhone} and keeps moving funds.`;
      await sql`update disputes set reason = ${before.dispute.reason}, reason_token = null,
        owner_statement = ${before.dispute.ownerStatement}, owner_statement_token = null,
        decision_reason = ${before.dispute.decisionReason}, decision_reason_token = null
        where id = ${disputeId}`.execute(db);
      for (const report of before.reports.filter((r) => r.exitListReason !== null)) {
        await sql`update reports set exit_list_reason = ${report.exitListReason}, exit_list_reason_token = null
          where id = ${report.id}`.execute(db);
      }
      await sql`update reports set renewal_statement = ${statement}, renewal_statement_token = null
        where id = ${reports.renewed.id}`.execute(db);
      // A report that left by expiry keeps its fixed phrase in clear: it tells how it left.
      const expired = await createReport(t, owner.apiKey);
      await sql`update reports set listing_status = 'exited', exited_list_at = now(), exit_list_reason = 'Expired'
        where id = ${expired.id}`.execute(db);
      expect(await readAll()).toEqual(before);

      // Three dispute texts, three exit reasons and a renewal statement.
      expect(await sealClearTexts(db, t.app.crypto.keyring)).toBe(7);
      const left = await sql<{ n: number }>`select
        (select count(*) from disputes where reason is not null or owner_statement is not null or decision_reason is not null)
        + (select count(*) from reports where renewal_statement is not null
           or (exit_list_reason is not null and id <> ${expired.id}))
        as n`.execute(db);
      expect(Number(left.rows[0]?.n)).toBe(0);
      expect(await readAll()).toEqual(before);
      expect(await submission(t, owner.apiKey, expired.id)).toMatchObject({ exitListReason: 'Expired', exitedBy: 'expiry' });
      const renewal = await sql<{ renewal_statement_token: string }>`
        select renewal_statement_token from reports where id = ${reports.renewed.id}`.execute(db);
      expect(
        t.app.crypto.keyring.open(renewal.rows[0]?.renewal_statement_token as string, {
          companyId: owner.companyId,
          recordId: reports.renewed.id,
          label: 'renewalStatement',
        }),
      ).toBe(statement);
      expect(await sealClearTexts(db, t.app.crypto.keyring)).toBe(0);

      // An older instance's clear words beside a token this version wrote later: the token stays.
      await sql`update reports set renewal_statement = 'Older words from an older instance, renewing it before.'
        where id = ${reports.renewed.id}`.execute(db);
      expect(await sealClearTexts(db, t.app.crypto.keyring)).toBe(1);
      const after = await sql<{ renewal_statement: string | null; renewal_statement_token: string }>`
        select renewal_statement, renewal_statement_token from reports where id = ${reports.renewed.id}`.execute(db);
      expect(after.rows[0]?.renewal_statement).toBeNull();
      expect(after.rows[0]?.renewal_statement_token).toBe(renewal.rows[0]?.renewal_statement_token);
    } finally {
      await t.close();
    }
  });
});
