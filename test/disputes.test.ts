import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { movableClock } from './helpers/clock.js';
import { localPhone } from './helpers/identifiers.js';
import { createCompany, createOperator, key } from './helpers/principals.js';
import { createReport, search } from './helpers/reports.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';
import { pathOf, uploadedUrl } from './helpers/uploads.js';

const clock = movableClock();
let t: TestApp;
let owner: Awaited<ReturnType<typeof createCompany>>;
let disputer: Awaited<ReturnType<typeof createCompany>>;
let stranger: Awaited<ReturnType<typeof createCompany>>;
let operator: Awaited<ReturnType<typeof createOperator>>;

const DISPUTES = '/api/v1/external/disputes';
const REASON = 'Our customer proved their identity in branch; the account was opened by them and never used for fraud.';
const STATEMENT = 'We reviewed the case again: the funds were moved to this account within minutes of the compromise.';

beforeAll(async () => {
  t = await buildTestApp({ clock, config: { jobTickSeconds: 0, disputeResponseDays: 14 } });
  owner = await createCompany(t);
  disputer = await createCompany(t);
  stranger = await createCompany(t);
  operator = await createOperator(t);
});
afterAll(() => t.close());

const post = (apiKey: string, url: string, payload?: object) =>
  t.app.inject({ method: 'POST', url, headers: key(apiKey), ...(payload ? { payload } : {}) });

async function listedReport(phone = localPhone()) {
  const report = await createReport(t, owner.apiKey, { identifiers: [{ label: 'phone', value: phone }] });
  return { ...report, phone };
}

async function openDispute(reportId: string, apiKey = disputer.apiKey) {
  const res = await post(apiKey, DISPUTES, { reportId, reason: REASON });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.dispute;
}

async function auditActions(companyId: string, reportId: string) {
  const rows = await t.database.db
    .selectFrom('audit_events')
    .select('action')
    .where('company_id', '=', companyId)
    .where('report_id', '=', reportId)
    .orderBy('id')
    .execute();
  return rows.map((r) => r.action);
}

describe('opening a dispute', () => {
  it('answers 201 with the deadline, tells the owner, and lists it on both sides', async () => {
    const report = await listedReport();
    const res = await post(disputer.apiKey, DISPUTES, { reportId: report.id, reason: REASON });
    expect(res.statusCode, res.body).toBe(201);
    const dispute = res.json().data.dispute;
    expect(dispute).toMatchObject({ reportId: report.id, status: 'open', raisedByOperator: false });
    // Named so a person recognises it, and nothing more of the report (no identifier, no reason).
    expect(dispute.report).toEqual({ fraudType: 'money_mule', publishedAt: expect.any(String) });
    expect(Date.parse(dispute.respondBy) - Date.parse(dispute.openedAt)).toBe(14 * 86_400_000);

    expect(await auditActions(owner.companyId, report.id)).toEqual(['create', 'dispute_open', 'submission.disputed']);
    expect(await auditActions(disputer.companyId, report.id)).toEqual(['dispute_open']);

    const raised = await t.app.inject({ url: `${DISPUTES}?side=raised&status=open`, headers: key(disputer.apiKey) });
    expect(raised.json().data.data.map((d: { id: string }) => d.id)).toContain(dispute.id);
    const received = await t.app.inject({ url: `${DISPUTES}?side=received`, headers: key(owner.apiKey) });
    expect(received.json().data.data.map((d: { id: string }) => d.id)).toContain(dispute.id);
    const none = await t.app.inject({ url: `${DISPUTES}?side=received`, headers: key(disputer.apiKey) });
    expect(none.json().data.data.map((d: { id: string }) => d.id)).not.toContain(dispute.id);
  });

  it('allows one unresolved dispute per report and disputing company (409), another company may still dispute', async () => {
    const report = await listedReport();
    await openDispute(report.id);
    const again = await post(disputer.apiKey, DISPUTES, { reportId: report.id, reason: REASON });
    expect(again.statusCode).toBe(409);
    expect(again.json().data.code).toBe('INVALID_STATE');
    await openDispute(report.id, stranger.apiKey);
  });

  it('refuses its own report (409), a draft, an exited report or unknown id (404 alike), a foreign identifier id (400)', async () => {
    const report = await listedReport();
    expect((await post(owner.apiKey, DISPUTES, { reportId: report.id, reason: REASON })).statusCode).toBe(409);
    const draft = await createReport(t, owner.apiKey, { status: 'draft' });
    const hidden = await post(disputer.apiKey, DISPUTES, { reportId: draft.id, reason: REASON });
    const random = await post(disputer.apiKey, DISPUTES, { reportId: crypto.randomUUID(), reason: REASON });
    expect(hidden.statusCode).toBe(404);
    expect(hidden.json().message).toBe(random.json().message);
    const bad = await post(disputer.apiKey, DISPUTES, {
      reportId: report.id,
      reason: REASON,
      identifierIds: [crypto.randomUUID()],
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().data.errors[0].field).toBe('identifierIds/0');
    const exited = await listedReport();
    await post(owner.apiKey, `/api/v1/external/reports/submissions/${exited.id}/exit`, { reason: 'Closed after review' });
    // Off the list, another member sees no such report anywhere: the answer is a random id's, body and all.
    const offList = await post(disputer.apiKey, DISPUTES, { reportId: exited.id, reason: REASON });
    expect(offList.statusCode).toBe(404);
    const { requestId: _a, ...offListData } = offList.json().data;
    const { requestId: _b, ...randomData } = random.json().data;
    expect({ ...offList.json(), data: offListData }).toEqual({ ...random.json(), data: randomData });
    // Operators see every report: they hear why.
    const byOperator = await post(operator.apiKey, DISPUTES, { reportId: exited.id, reason: REASON });
    expect([byOperator.statusCode, byOperator.json().message]).toEqual([409, 'The report is no longer on the list']);
  });

  it('carries up to 3 evidence files of the disputing company, as signed links both sides can open', async () => {
    const report = await listedReport();
    const url = await uploadedUrl(t, disputer.apiKey);
    const res = await post(disputer.apiKey, DISPUTES, { reportId: report.id, reason: REASON, attachments: [url] });
    expect(res.statusCode, res.body).toBe(201);
    const dispute = res.json().data.dispute;
    const read = await t.app.inject({ url: `${DISPUTES}/${dispute.id}`, headers: key(owner.apiKey) });
    const [link] = read.json().data.dispute.attachments;
    expect((await t.app.inject({ url: pathOf(link) })).statusCode).toBe(200);
    // Another company's upload is refused, naming the field.
    const foreign = await uploadedUrl(t, stranger.apiKey);
    const other = await listedReport();
    const refused = await post(disputer.apiKey, DISPUTES, { reportId: other.id, reason: REASON, attachments: [foreign] });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().data.errors[0].field).toBe('attachments/0');
  });

  it("never shows the owner's identifier values to the disputing company", async () => {
    const report = await listedReport();
    const dispute = await openDispute(report.id);
    const read = await t.app.inject({ url: `${DISPUTES}/${dispute.id}`, headers: key(disputer.apiKey) });
    expect(read.statusCode).toBe(200);
    expect(read.body).not.toContain(report.phone.slice(1));
    const decode = await t.app.inject({
      url: `/api/v1/external/reports/submissions/${report.id}/decode`,
      headers: key(disputer.apiKey),
    });
    expect(decode.statusCode).toBe(404);
    // A company on neither side gets the 404 of a random id.
    const foreign = await t.app.inject({ url: `${DISPUTES}/${dispute.id}`, headers: key(stranger.apiKey) });
    const random = await t.app.inject({ url: `${DISPUTES}/${crypto.randomUUID()}`, headers: key(stranger.apiKey) });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().message).toBe(random.json().message);
  });
});

describe("the owner's answer", () => {
  it('uphold with a statement; every impossible step after it is 409, a wrong side 403 or 404', async () => {
    const report = await listedReport();
    const dispute = await openDispute(report.id);
    expect((await post(disputer.apiKey, `${DISPUTES}/${dispute.id}/uphold`, { statement: STATEMENT })).statusCode).toBe(403);
    expect((await post(stranger.apiKey, `${DISPUTES}/${dispute.id}/uphold`, { statement: STATEMENT })).statusCode).toBe(404);
    expect((await post(owner.apiKey, `${DISPUTES}/${dispute.id}/uphold`, { statement: 'too short' })).statusCode).toBe(400);
    expect((await post(disputer.apiKey, `${DISPUTES}/${dispute.id}/escalate`)).statusCode).toBe(409);
    const res = await post(owner.apiKey, `${DISPUTES}/${dispute.id}/uphold`, { statement: STATEMENT });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.dispute).toMatchObject({ status: 'upheld', ownerStatement: STATEMENT });
    expect((await post(owner.apiKey, `${DISPUTES}/${dispute.id}/uphold`, { statement: STATEMENT })).statusCode).toBe(409);
    expect(
      (
        await post(operator.apiKey, `/api/v1/admin/disputes/${dispute.id}/decide`, {
          outcome: 'keep',
          reason: 'Not escalated yet',
        })
      ).statusCode,
    ).toBe(409);
    expect(await auditActions(disputer.companyId, report.id)).toEqual(['dispute_open', 'dispute_uphold']);
  });

  it('exit takes the report off the list with the reason; the dispute is closed', async () => {
    const report = await listedReport();
    const dispute = await openDispute(report.id);
    const res = await post(owner.apiKey, `${DISPUTES}/${dispute.id}/exit`, { reason: 'Customer identity confirmed' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.dispute.status).toBe('exited');
    const read = await t.app.inject({ url: `/api/v1/external/reports/submissions/${report.id}`, headers: key(owner.apiKey) });
    expect(read.json().data.report).toMatchObject({
      listingStatus: 'exited',
      exitListReason: 'Customer identity confirmed',
      exitedBy: 'dispute',
    });
    expect((await search(t, disputer.apiKey, 'phone', report.phone)).json().data.reports).toEqual([]);
    expect(
      (await post(owner.apiKey, `${DISPUTES}/${dispute.id}/exit`, { reason: 'Customer identity confirmed' })).statusCode,
    ).toBe(409);
    expect((await post(owner.apiKey, `${DISPUTES}/${dispute.id}/uphold`, { statement: STATEMENT })).statusCode).toBe(409);
    // The member cannot undo its answer by relisting the report at once.
    const relisted = await post(owner.apiKey, `/api/v1/external/reports/submissions/${report.id}/relist`);
    expect(relisted.statusCode).toBe(409);
    expect(relisted.json().message).toContain('only the operators can put it back');
    expect(await auditActions(owner.companyId, report.id)).toEqual([
      'create',
      'dispute_open',
      'submission.disputed',
      'exit',
      'submission.exited',
      'dispute_exit',
    ]);
  });
});

describe("identifiers typed into a side's words", () => {
  it('reach the other member masked, as in search; the writer and the operators read them whole', async () => {
    const report = await listedReport();
    const reason = `${REASON} Their BVN is 22233344455 and they can be reached on 0803 999 8877.`;
    const statement = `${STATEMENT} The mule's e-mail is mule.guy@yahoo.com and BVN 22299988877.`;
    const opened = await post(disputer.apiKey, DISPUTES, { reportId: report.id, reason });
    expect(opened.statusCode, opened.body).toBe(201);
    const id = opened.json().data.dispute.id;
    expect(opened.json().data.dispute.reason).toBe(reason);
    const upheld = await post(owner.apiKey, `${DISPUTES}/${id}/uphold`, { statement });
    expect(upheld.json().data.dispute).toMatchObject({ ownerStatement: statement });
    expect(upheld.json().data.dispute.reason).not.toContain('22233344455');

    const read = async (apiKey: string, url = `${DISPUTES}/${id}`) => (await t.app.inject({ url, headers: key(apiKey) })).body;
    const asOwner = await read(owner.apiKey);
    expect(asOwner).not.toMatch(/22233344455|999 8877/);
    expect(asOwner).toContain('*********55');
    const asDisputer = [await read(disputer.apiKey), await read(disputer.apiKey, `${DISPUTES}?side=raised&limit=100`)];
    for (const body of asDisputer) {
      expect(body).not.toMatch(/22299988877|mule\.guy@yahoo\.com/);
      expect(body).toContain('m***@yahoo.com');
    }
    expect(asDisputer[0]).toContain('22233344455');
    const asOperators = await read(operator.apiKey, `/api/v1/admin/disputes?limit=100`);
    expect(asOperators).toContain('22233344455');
    expect(asOperators).toContain('mule.guy@yahoo.com');
  });
});

describe('the operators read the report they decide on', () => {
  it("in clear, audited in the owning member's trail; a member cannot, and a random id is a 404", async () => {
    const report = await listedReport();
    const read = await t.app.inject({ url: `/api/v1/admin/reports/${report.id}`, headers: key(operator.apiKey) });
    expect(read.statusCode, read.body).toBe(200);
    expect(read.json().data.report).toMatchObject({
      id: report.id,
      fraudReason: expect.any(String),
      identifiers: [{ label: 'phone', value: `+234${report.phone.slice(1)}` }],
    });
    expect(await auditActions(owner.companyId, report.id)).toEqual(['create', 'decode']);
    const trail = await t.app.inject({ url: '/api/v1/external/audit?action=decode', headers: key(owner.apiKey) });
    expect(trail.json().data.data[0]).toMatchObject({ action: 'decode', actor: 'operators', reportId: report.id });
    expect((await t.app.inject({ url: `/api/v1/admin/reports/${report.id}`, headers: key(disputer.apiKey) })).statusCode).toBe(
      403,
    );
    const missing = await t.app.inject({ url: `/api/v1/admin/reports/${crypto.randomUUID()}`, headers: key(operator.apiKey) });
    expect(missing.statusCode).toBe(404);
  });
});

describe('escalation and the operators', () => {
  async function upheld() {
    const report = await listedReport();
    const dispute = await openDispute(report.id);
    await post(owner.apiKey, `${DISPUTES}/${dispute.id}/uphold`, { statement: STATEMENT });
    return { report, dispute };
  }

  it('either side escalates an upheld dispute once; an operator keeps the report', async () => {
    const { report, dispute } = await upheld();
    expect((await post(stranger.apiKey, `${DISPUTES}/${dispute.id}/escalate`)).statusCode).toBe(404);
    const res = await post(owner.apiKey, `${DISPUTES}/${dispute.id}/escalate`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.dispute.status).toBe('escalated');
    expect((await post(disputer.apiKey, `${DISPUTES}/${dispute.id}/escalate`)).statusCode).toBe(409);
    const queue = await t.app.inject({ url: '/api/v1/admin/disputes?status=escalated', headers: key(operator.apiKey) });
    expect(queue.json().data.data.map((d: { id: string }) => d.id)).toContain(dispute.id);
    // Parameters the operators' list does not declare are ignored, whatever they hold (one was a 500).
    const undeclared = await t.app.inject({
      url: '/api/v1/admin/disputes?status=escalated&companyId=zz&side=raised',
      headers: key(operator.apiKey),
    });
    expect(undeclared.statusCode).toBe(200);
    expect(undeclared.json().data).toEqual(queue.json().data);
    expect(
      (await post(disputer.apiKey, `/api/v1/admin/disputes/${dispute.id}/decide`, { outcome: 'keep', reason: 'x'.repeat(20) }))
        .statusCode,
    ).toBe(403);
    const kept = await post(operator.apiKey, `/api/v1/admin/disputes/${dispute.id}/decide`, {
      outcome: 'keep',
      reason: 'The evidence supports the listing',
    });
    expect(kept.statusCode, kept.body).toBe(200);
    expect(kept.json().data.dispute).toMatchObject({ status: 'kept', decisionReason: 'The evidence supports the listing' });
    expect((await search(t, disputer.apiKey, 'phone', report.phone)).json().data.reports).toHaveLength(1);
    expect(
      (
        await post(operator.apiKey, `/api/v1/admin/disputes/${dispute.id}/decide`, {
          outcome: 'remove',
          reason: 'Changed our mind',
        })
      ).statusCode,
    ).toBe(409);
    expect(await auditActions(disputer.companyId, report.id)).toEqual([
      'dispute_open',
      'dispute_uphold',
      'dispute_escalate',
      'dispute_keep',
    ]);
  });

  it('an operator removes the report with its reason', async () => {
    const { report, dispute } = await upheld();
    await post(disputer.apiKey, `${DISPUTES}/${dispute.id}/escalate`);
    const res = await post(operator.apiKey, `/api/v1/admin/disputes/${dispute.id}/decide`, {
      outcome: 'remove',
      reason: 'Identity theft victim, confirmed',
    });
    expect(res.json().data.dispute.status).toBe('removed');
    const read = await t.app.inject({ url: `/api/v1/external/reports/submissions/${report.id}`, headers: key(owner.apiKey) });
    expect(read.json().data.report).toMatchObject({
      listingStatus: 'exited',
      exitListReason: 'Identity theft victim, confirmed',
    });
    // The operators' decision stands against the member; the operators themselves may put it back.
    const relist = `/api/v1/external/reports/submissions/${report.id}/relist`;
    expect((await post(owner.apiKey, relist)).statusCode).toBe(409);
    expect((await search(t, disputer.apiKey, 'phone', report.phone)).json().data.reports).toEqual([]);
    expect((await post(operator.apiKey, relist)).statusCode).toBe(200);
    // Once back, the report is the member's again: its own exit later is its own to undo.
    const exit = `/api/v1/external/reports/submissions/${report.id}/exit`;
    expect((await post(owner.apiKey, exit, { reason: 'Customer came to the branch' })).statusCode).toBe(200);
    expect((await post(owner.apiKey, relist)).statusCode).toBe(200);
  });

  it('a dispute whose report left the list another way has nothing left to decide, until the report comes back', async () => {
    const report = await listedReport();
    const first = await openDispute(report.id);
    const second = await openDispute(report.id, stranger.apiKey);
    // The operators remove the report on the first dispute.
    await post(owner.apiKey, `${DISPUTES}/${first.id}/uphold`, { statement: STATEMENT });
    await post(disputer.apiKey, `${DISPUTES}/${first.id}/escalate`);
    const removed = await post(operator.apiKey, `/api/v1/admin/disputes/${first.id}/decide`, {
      outcome: 'remove',
      reason: 'Identity theft victim, confirmed',
    });
    expect(removed.statusCode, removed.body).toBe(200);
    // The second can no longer be upheld (nor so escalated and "kept" for a report that is off the list).
    const uphold = await post(owner.apiKey, `${DISPUTES}/${second.id}/uphold`, { statement: STATEMENT });
    expect(uphold.statusCode).toBe(409);
    expect(uphold.json().message).toContain('no longer on the list');
    // The operators put the report back: the second dispute goes on.
    expect((await post(operator.apiKey, `/api/v1/external/reports/submissions/${report.id}/relist`)).statusCode).toBe(200);
    expect((await post(owner.apiKey, `${DISPUTES}/${second.id}/uphold`, { statement: STATEMENT })).statusCode).toBe(200);
  });

  it("an operator's remove keeps off a report its owner had already taken off: the owner cannot relist it", async () => {
    const { report, dispute } = await upheld();
    await post(disputer.apiKey, `${DISPUTES}/${dispute.id}/escalate`);
    const exit = `/api/v1/external/reports/submissions/${report.id}/exit`;
    expect((await post(owner.apiKey, exit, { reason: 'Taken off while the operators look' })).statusCode).toBe(200);
    const res = await post(operator.apiKey, `/api/v1/admin/disputes/${dispute.id}/decide`, {
      outcome: 'remove',
      reason: 'Identity theft victim, confirmed',
    });
    expect(res.json().data.dispute.status).toBe('removed');
    expect((await post(owner.apiKey, `/api/v1/external/reports/submissions/${report.id}/relist`)).statusCode).toBe(409);
  });

  it('counts a reason or a statement after trimming: spaces do not make up the length', async () => {
    const { dispute } = await upheld();
    const padded = `${' '.repeat(12)}a`;
    await post(disputer.apiKey, `${DISPUTES}/${dispute.id}/escalate`);
    const decided = await post(operator.apiKey, `/api/v1/admin/disputes/${dispute.id}/decide`, {
      outcome: 'remove',
      reason: padded,
    });
    expect(decided.statusCode).toBe(400);
    expect(decided.json().data.errors).toEqual([
      { field: 'reason', message: 'must be at least 10 characters, not counting spaces at either end' },
    ]);
    const other = await listedReport();
    const open = await openDispute(other.id);
    const exited = await post(owner.apiKey, `${DISPUTES}/${open.id}/exit`, { reason: padded });
    expect(exited.json().data.errors).toEqual([
      { field: 'reason', message: 'must be at least 10 characters, not counting spaces at either end' },
    ]);
    const plain = await post(owner.apiKey, `/api/v1/external/reports/submissions/${other.id}/exit`, { reason: padded });
    expect(plain.json().data.errors).toEqual([
      { field: 'reason', message: 'must be at least 10 characters, not counting spaces at either end' },
    ]);
  });

  it('an operator may open a dispute too (no attachments)', async () => {
    const report = await listedReport();
    const dispute = await openDispute(report.id, operator.apiKey);
    expect(dispute).toMatchObject({ raisedByOperator: true, disputingCompany: null });
  });
});

describe('the deadline', () => {
  it('an unanswered dispute takes the report off the list when the timeout job runs past respondBy; twice is harmless', async () => {
    const report = await listedReport();
    const dispute = await openDispute(report.id);
    const answered = await openDispute((await listedReport()).id);
    await post(owner.apiKey, `${DISPUTES}/${answered.id}/uphold`, { statement: STATEMENT });

    clock.advanceDays(13);
    await t.app.jobs.runNow('disputes.timeout');
    let read = await t.app.inject({ url: `${DISPUTES}/${dispute.id}`, headers: key(owner.apiKey) });
    expect(read.json().data.dispute.status).toBe('open');

    clock.advanceDays(2);
    const first = await t.app.jobs.runNow('disputes.timeout');
    expect(first).toMatchObject({ ran: true });
    expect(first.items).toBeGreaterThanOrEqual(1);
    const second = await t.app.jobs.runNow('disputes.timeout');
    expect(second).toMatchObject({ ran: true, items: 0 });
    clock.reset();

    read = await t.app.inject({ url: `${DISPUTES}/${dispute.id}`, headers: key(disputer.apiKey) });
    expect(read.json().data.dispute.status).toBe('timed_out');
    const upheldStill = await t.app.inject({ url: `${DISPUTES}/${answered.id}`, headers: key(disputer.apiKey) });
    expect(upheldStill.json().data.dispute.status).toBe('upheld');
    const sub = await t.app.inject({ url: `/api/v1/external/reports/submissions/${report.id}`, headers: key(owner.apiKey) });
    expect(sub.json().data.report).toMatchObject({ listingStatus: 'exited', exitListReason: 'Dispute not answered in time' });
    expect((await post(owner.apiKey, `${DISPUTES}/${dispute.id}/uphold`, { statement: STATEMENT })).statusCode).toBe(409);
    expect(await auditActions(owner.companyId, report.id)).toEqual([
      'create',
      'dispute_open',
      'submission.disputed',
      'exit',
      'submission.exited',
      'dispute_time_out',
    ]);
    expect(await auditActions(disputer.companyId, report.id)).toEqual(['dispute_open', 'dispute_time_out']);
    // Off the list by the timeout: the member cannot put it back.
    expect((await post(owner.apiKey, `/api/v1/external/reports/submissions/${report.id}/relist`)).statusCode).toBe(409);
  });

  it('a report its member took off before the dispute timed out stays the member’s to relist', async () => {
    const report = await listedReport();
    await openDispute(report.id);
    const exit = await post(owner.apiKey, `/api/v1/external/reports/submissions/${report.id}/exit`, {
      reason: 'Taken off while we look again',
    });
    expect(exit.statusCode).toBe(200);
    clock.advanceDays(15);
    await t.app.jobs.runNow('disputes.timeout');
    clock.reset();
    expect((await post(owner.apiKey, `/api/v1/external/reports/submissions/${report.id}/relist`)).statusCode).toBe(200);
  });
});
