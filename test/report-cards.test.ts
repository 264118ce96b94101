import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCrypto } from '../src/crypto/load-crypto.js';
import { rotateKeys } from '../src/crypto/rotation.js';
import { sealedColumns } from '../src/crypto/sealed-columns.js';
import { digits, localPhone } from './helpers/identifiers.js';
import { createCompany, createOperator, key } from './helpers/principals.js';
import { ADMIN, filePublicReport } from './helpers/public-reports.js';
import { createReport, search } from './helpers/reports.js';
import { matchesSearchSchema } from './helpers/search-schema.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';
import { engine } from './helpers/test-database.js';

// A search lists each report from its card, kept by triggers (migration 0018, decision 0102).
// These tests change reports every way the service and its tools do and check that no card is
// left behind: each equals its report's entry built now, and the search shows the change.

let t: TestApp;
let member: Awaited<ReturnType<typeof createCompany>>;
let operator: Awaited<ReturnType<typeof createOperator>>;

beforeAll(async () => {
  t = await buildTestApp();
  member = await createCompany(t, { businessName: 'Gamma Savings and Loans' });
  operator = await createOperator(t);
});
afterAll(() => t.close());

const SUBMISSIONS = '/api/v1/external/reports/submissions';

/** Reports (and public reports) whose card is missing or differs from their entry built from the tables now. */
async function staleCards(): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`
    select r.id from reports r left join report_cards c on c.report_id = r.id
    where c.card is distinct from report_card(r.id)
    union all
    select p.id from public_reports p left join public_report_cards c on c.public_report_id = p.id
    where c.card is distinct from public_report_card(p.id)`.execute(t.database.db);
  return rows.map((row) => row.id);
}

const asMember = (method: 'PATCH' | 'POST', url: string, payload?: Record<string, unknown>) =>
  t.app.inject({ method, url, headers: key(member.apiKey), ...(payload ? { payload } : {}) });

async function found(label: string, value: string) {
  const res = await search(t, member.apiKey, label, value);
  expect(res.statusCode).toBe(200);
  const body = res.json();
  expect(matchesSearchSchema(body), JSON.stringify(matchesSearchSchema.errors)).toBe(true);
  return { data: body.data, text: res.body };
}

describe('report cards', () => {
  it('follow a report through draft edits, publishing, exit and relisting, and its company through a new name', async () => {
    const first = localPhone();
    const second = localPhone();
    const bvn = `22${digits(9)}`;
    const draft = await createReport(t, member.apiKey, { status: 'draft', identifiers: [{ label: 'phone', value: first }] });
    expect(await staleCards()).toEqual([]);

    // Editing a draft's identifiers replaces its rows in report_identifiers.
    const edited = await asMember('PATCH', `${SUBMISSIONS}/${draft.id}`, {
      fraudType: 'identity_theft',
      identifiers: [
        { label: 'phone', value: second },
        { label: 'bvn', value: bvn },
      ],
    });
    expect(edited.statusCode, edited.body).toBe(200);
    expect((await asMember('POST', `${SUBMISSIONS}/${draft.id}/publish`)).statusCode).toBe(200);
    expect(await staleCards()).toEqual([]);

    expect((await found('phone', first)).data.reports).toEqual([]);
    const published = (await found('phone', second)).data.reports;
    expect(published).toHaveLength(1);
    expect(published[0]).toMatchObject({
      id: draft.id,
      fraudType: 'identity_theft',
      status: 'published',
      listingStatus: 'listed',
      exitedListAt: null,
      reportingCompany: { businessName: 'Gamma Savings and Loans', id: member.companyId },
      dispute: null,
    });
    expect(published[0].identifiers.map((i: { label: string }) => i.label)).toEqual(['phone', 'bvn']);
    expect((await found('bvn', bvn)).data.reports.map((r: { id: string }) => r.id)).toEqual([draft.id]);

    const exited = await asMember('POST', `${SUBMISSIONS}/${draft.id}/exit`, {
      reason: 'Customer repaid and closed the account',
    });
    expect(exited.statusCode, exited.body).toBe(200);
    expect((await found('phone', second)).data.reports).toEqual([]);
    const relisted = await asMember('POST', `${SUBMISSIONS}/${draft.id}/relist`);
    expect(relisted.statusCode, relisted.body).toBe(200);
    expect(await staleCards()).toEqual([]);
    const back = (await found('phone', second)).data.reports[0];
    expect(back).toMatchObject({ listingStatus: 'listed', updatedAt: relisted.json().data.report.updatedAt });

    // No route renames a company; an operator's SQL may, and the cards follow it.
    await sql`update companies set business_name = 'Gamma Bank' where id = ${member.companyId}`.execute(t.database.db);
    expect(await staleCards()).toEqual([]);
    expect((await found('phone', second)).data.reports[0].reportingCompany).toEqual({
      businessName: 'Gamma Bank',
      id: member.companyId,
    });

    // An identifier deleted alone (an operator's correction) leaves the card.
    await sql`delete from report_identifiers where report_id = ${draft.id} and label = 'bvn'`.execute(t.database.db);
    expect(await staleCards()).toEqual([]);
    expect((await found('phone', second)).data.reports[0].identifiers.map((i: { label: string }) => i.label)).toEqual(['phone']);
  });

  it('are closed with the dispute, in the order and spacing json_build_object gives', async () => {
    const phone = localPhone();
    const report = await createReport(t, member.apiKey, { identifiers: [{ label: 'phone', value: phone }] });
    const disputer = await createCompany(t);
    const opened = await t.app.inject({
      method: 'POST',
      url: '/api/v1/external/disputes',
      headers: key(disputer.apiKey),
      payload: { reportId: report.id, reason: "We hold this customer's KYC and the account is not theirs at all." },
    });
    expect(opened.statusCode, opened.body).toBe(201);
    const publicId = await filePublicReport(t, phone);
    await t.app.inject({ method: 'POST', url: `${ADMIN}/${publicId}/publish`, headers: key(operator.apiKey) });

    const { data, text } = await found('phone', phone);
    const [entry] = data.reports;
    expect(Object.keys(entry)).toEqual([
      'id',
      'companyId',
      'userId',
      'listingStatus',
      'exitedListAt',
      'exitListReason',
      'fraudType',
      'fraudReason',
      'showUploaderInfo',
      'attachments',
      'status',
      'createdAt',
      'updatedAt',
      'reportingCompany',
      'identifiers',
      'dispute',
    ]);
    expect(entry.dispute).toMatchObject({ status: 'open' });
    expect(Object.keys(entry.dispute)).toEqual(['status', 'openedAt', 'respondBy']);
    expect(Object.keys(data.publicReports[0])).toEqual([
      'id',
      'userId',
      'fraudReason',
      'fraudType',
      'attachments',
      'financialInstitution',
      'eventDate',
      'companyId',
      'notificationSent',
      'status',
      'victim',
      'guestInfo',
      'reportingEntity',
      'createdAt',
      'updatedAt',
      'identifiers',
    ]);
    // The text as PostgreSQL's json_build_object and json_agg write it, which the cards are spliced to match.
    expect(text).toContain(`"identifiers" : [{"id" : "${entry.identifiers[0].id}", "label" : "phone", "value" : "`);
    expect(text).toContain(`}], "dispute" : {"status" : "open", "openedAt" : "${entry.dispute.openedAt}", "respondBy" : "`);
    expect(text).toContain(`"data":{"reports" : [{"id" : "${report.id}", "companyId" : "`);
    expect(text).toContain(`], "publicReports" : [{"id" : "${publicId}", "userId" : null, `);
    expect(text).toMatch(/}], "summary" : \{"totalReports" : 1, "totalPublicReports" : 1, /);
  });

  it('follow a key rotation, which seals every identifier again', async () => {
    const phone = localPhone();
    const report = await createReport(t, member.apiKey, { identifiers: [{ label: 'phone', value: phone }] });
    const publicId = await filePublicReport(t, phone);
    await t.app.inject({ method: 'POST', url: `${ADMIN}/${publicId}/publish`, headers: key(operator.apiKey) });
    const before = (await found('phone', phone)).data.reports[0].identifiers[0].value;
    const publicBefore = (await found('phone', phone)).data.publicReports[0].identifiers[0].value;
    const crypto = await loadCrypto({ db: t.database.db, config: t.config, engine: t.database.engine });
    const summary = await rotateKeys({ db: t.database.db, crypto, columns: sealedColumns });
    expect(summary.failed).toBe(0);
    expect(await staleCards()).toEqual([]);
    const stored = await t.database.db
      .selectFrom('report_identifiers')
      .select('value_token')
      .where('report_id', '=', report.id)
      .executeTakeFirstOrThrow();
    expect(stored.value_token).not.toBe(before);
    expect((await found('phone', phone)).data.reports[0].identifiers[0].value).toBe(stored.value_token);
    const publicAfter = (await found('phone', phone)).data.publicReports[0].identifiers[0].value;
    expect(publicAfter).not.toBe(publicBefore);
  });

  // Two transactions changing different rows of one report: each trigger builds the card from its
  // own snapshot, so without the lock on the report the later one wrote a card without the other's
  // change. Several connections at once: the server engine only (the embedded one has one).
  it.skipIf(engine !== 'server')('stay whole when two transactions change one report at once', async () => {
    const phone = localPhone();
    const report = await createReport(t, member.apiKey, { identifiers: [{ label: 'phone', value: phone }] });
    const db = t.database.db;
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let exited = () => {};
    const exitDone = new Promise<void>((resolve) => {
      exited = resolve;
    });
    const exit = db.transaction().execute(async (trx) => {
      await sql`update reports set listing_status = 'exited', exited_list_at = now(), exit_list_reason = 'Cleared',
        updated_at = now() where id = ${report.id}`.execute(trx);
      exited();
      await held;
    });
    await exitDone;
    // A second writer (as a key rotation's batch would) while the exit is not committed.
    const reseal = db.transaction().execute(async (trx) => {
      await sql`update report_identifiers set value_token = value_token || 'x' where report_id = ${report.id}`.execute(trx);
    });
    await sleep(300);
    release();
    await Promise.all([exit, reseal]);
    expect(await staleCards()).toEqual([]);
  });

  it('follow a public report through moderation', async () => {
    const phone = localPhone();
    const id = await filePublicReport(t, phone);
    expect(await staleCards()).toEqual([]);
    const published = await t.app.inject({ method: 'POST', url: `${ADMIN}/${id}/publish`, headers: key(operator.apiKey) });
    expect(published.statusCode, published.body).toBe(200);
    expect(await staleCards()).toEqual([]);
    const { data } = await found('phone', phone);
    expect(data.publicReports.map((r: { id: string; status: string }) => [r.id, r.status])).toEqual([[id, 'published']]);
  });

  it('answer a report without a card word for word as with it', async () => {
    const phone = localPhone();
    await createReport(t, member.apiKey, { identifiers: [{ label: 'phone', value: phone }] });
    const id = await filePublicReport(t, phone);
    await t.app.inject({ method: 'POST', url: `${ADMIN}/${id}/publish`, headers: key(operator.apiKey) });
    const withCards = await found('phone', phone);
    expect(withCards.data.reports).toHaveLength(1);
    expect(withCards.data.publicReports).toHaveLength(1);
    await sql`delete from report_cards`.execute(t.database.db);
    await sql`delete from public_report_cards`.execute(t.database.db);
    expect((await found('phone', phone)).text).toBe(withCards.text);
  });

  // Migration 0019, decision 0103: on tables without statistics the planner costed each card's
  // statement above jit_above_cost, and every card built paid for an LLVM compilation. The setting
  // sits on the trigger functions, so it holds whoever writes and whatever their session says.
  it('are rebuilt with JIT off, whoever writes', async () => {
    const { rows } = await sql<{ name: string; config: string | null }>`
      select proname as name, array_to_string(proconfig, ',') as config from pg_proc
      where pronamespace = current_schema()::regnamespace
        and proname in ('report_cards_rebuild', 'public_report_cards_rebuild')
      order by proname`.execute(t.database.db);
    expect(rows.map((row) => row.name)).toEqual(['public_report_cards_rebuild', 'report_cards_rebuild']);
    for (const row of rows) expect(row.config?.split(',')).toContain('jit=off');
  });
});
