import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FRAUD_TYPES } from '../src/modules/reports/report-values.js';
import { digits, localPhone, nuban } from './helpers/identifiers.js';
import { createCompany, createOperator, key } from './helpers/principals.js';
import { REASON, reportBody } from './helpers/reports.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

let t: TestApp;
let company: Awaited<ReturnType<typeof createCompany>>;

beforeAll(async () => {
  t = await buildTestApp();
  company = await createCompany(t, { businessName: 'Lagos Lenders Ltd' });
});
afterAll(() => t.close());

const post = (payload: unknown, headers: Record<string, string> = key(company.apiKey)) =>
  t.app.inject({ method: 'POST', url: '/api/v1/external/reports', headers, payload: payload as object });

const reason = (n: number) => 'x'.repeat(n);

describe('POST /api/v1/external/reports', () => {
  it('creates a report: 201 with the Created report of the interface document', async () => {
    const phone = localPhone();
    const res = await post(
      reportBody({
        identifiers: [
          { label: 'phone', value: phone },
          { label: 'email', value: '  Mule.Account@Example.COM ' },
        ],
      }),
    );
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body.success).toBe(true);
    expect(body.message).toBe('Report created successfully');
    const report = body.data;
    expect(Object.keys(report).sort()).toEqual(
      [
        'attachments',
        'companyId',
        'createdAt',
        'exitListReason',
        'exitedListAt',
        'fraudReason',
        'fraudType',
        'id',
        'identifiers',
        'reportedBy',
        'status',
        'updatedAt',
      ].sort(),
    );
    expect(report).toMatchObject({
      companyId: company.companyId,
      exitedListAt: null,
      exitListReason: null,
      fraudType: 'money_mule',
      fraudReason: REASON,
      reportedBy: 'Lagos Lenders Ltd',
      status: 'published',
      attachments: [],
    });
    expect(report.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Date(report.createdAt).toISOString()).toBe(report.createdAt);
    // The normalised clear values the caller sent, without ids.
    expect(report.identifiers).toEqual([
      { label: 'phone', value: `+234${phone.slice(1)}` },
      { label: 'email', value: 'mule.account@example.com' },
    ]);
  });

  it('answers 401 before looking at the body, and 403 for an operator key', async () => {
    const missing = await post({ nonsense: true }, {});
    expect(missing.statusCode).toBe(401);
    expect(missing.json().data.code).toBe('API_KEY_MISSING');
    const operator = await createOperator(t);
    const wrongRole = await post(reportBody(), key(operator.apiKey));
    expect(wrongRole.statusCode).toBe(403);
  });

  it('accepts a fraud reason of 50 and 2000 characters, refuses 49 and 2001, counting after trimming', async () => {
    expect((await post(reportBody({ fraudReason: reason(50) }))).statusCode).toBe(201);
    expect((await post(reportBody({ fraudReason: reason(2000) }))).statusCode).toBe(201);
    expect((await post(reportBody({ fraudReason: `   ${reason(2000)}\n` }))).statusCode).toBe(201);
    for (const text of [reason(49), reason(2001), `   ${reason(49)}    `]) {
      const res = await post(reportBody({ fraudReason: text }));
      expect(res.statusCode).toBe(400);
      expect(res.json().data.errors).toEqual([{ field: 'fraudReason', message: expect.stringMatching(/50|2000/) }]);
    }
  });

  it('accepts every fraud type of the interface, including sanctioned/ofac, and refuses others', async () => {
    for (const fraudType of FRAUD_TYPES) {
      const res = await post(reportBody({ fraudType }));
      expect(res.statusCode, fraudType).toBe(201);
      expect(res.json().data.fraudType).toBe(fraudType);
    }
    const bad = await post(reportBody({ fraudType: 'ponzi' }));
    expect(bad.statusCode).toBe(400);
    expect(bad.json().data.errors[0]).toMatchObject({ field: 'fraudType', message: expect.stringContaining('sanctioned/ofac') });
  });

  it('names every mistake in one answer: a bad fraud type and a bad phone together', async () => {
    const res = await post(reportBody({ fraudType: 'ponzi', identifiers: [{ label: 'phone', value: '12' }] }));
    expect(res.statusCode).toBe(400);
    expect(res.json().data.errors.map((e: { field: string }) => e.field)).toEqual(['fraudType', 'identifiers/0/value']);
  });

  it('accepts no attachments and refuses four', async () => {
    expect((await post(reportBody({ attachments: [] }))).statusCode).toBe(201);
    const four = await post(reportBody({ attachments: ['a', 'b', 'c', 'd'].map((x) => `https://files.example/${x}`) }));
    expect(four.statusCode).toBe(400);
    expect(four.json().data.errors).toEqual([{ field: 'attachments', message: 'must have at most 3 items' }]);
  });

  it('refuses an attachment URL that did not come from the upload endpoint', async () => {
    const res = await post(reportBody({ attachments: ['https://evil.example/file.pdf'] }));
    expect(res.statusCode).toBe(400);
    expect(res.json().data.errors[0].field).toBe('attachments/0');
  });

  it('needs 1 to 20 identifiers', async () => {
    const none = await post(reportBody({ identifiers: [] }));
    expect(none.statusCode).toBe(400);
    expect(none.json().data.errors).toEqual([{ field: 'identifiers', message: 'must have at least 1 item' }]);
    const twenty = Array.from({ length: 20 }, () => ({ label: 'bvn', value: `22${digits(9)}` }));
    expect((await post(reportBody({ identifiers: twenty }))).statusCode).toBe(201);
    const many = await post(reportBody({ identifiers: [...twenty, { label: 'bvn', value: `22${digits(9)}` }] }));
    expect(many.statusCode).toBe(400);
    expect(many.json().data.errors).toEqual([{ field: 'identifiers', message: 'must have at most 20 items' }]);
  });

  it.each([
    ['account', '0123456789_no-such-bank', /bank/i],
    ['account', '12345_access-bank', /10 digits/],
    ['account', nuban(), /bank/i],
    ['bvn', '2212345678', /BVN must be 11 digits/],
    ['nin', '1234567890a', /NIN/],
    ['phone', '12345', /phone/i],
    ['email', 'not-an-email', /e-mail/i],
    ['international_passport', '!!', /passport/i],
    ['drivers_license', '#', /licence/i],
    ['account_name', '12345', /name/i],
    ['social_handle', '@', /handle/i],
  ])('names the identifier and the reason for a bad %s', async (label, value, message) => {
    const res = await post(
      reportBody({
        identifiers: [
          { label: 'phone', value: localPhone() },
          { label, value },
        ],
      }),
    );
    expect(res.statusCode).toBe(400);
    const errors = res.json().data.errors;
    expect(errors).toHaveLength(1);
    expect(errors[0].field).toBe('identifiers/1/value');
    expect(errors[0].message).toMatch(message);
    // The message never repeats the value itself.
    if (value.length > 3) expect(errors[0].message).not.toContain(value);
  });

  it('refuses an unknown label, a missing label and the same identifier twice', async () => {
    const unknown = await post(reportBody({ identifiers: [{ label: 'tin', value: '123' }] }));
    expect(unknown.json().data.errors[0]).toMatchObject({ field: 'identifiers/0/label' });
    const missing = await post(reportBody({ identifiers: [{ value: '123' }] }));
    expect(missing.json().data.errors).toEqual([{ field: 'identifiers/0/label', message: 'is required' }]);
    const phone = localPhone();
    const twice = await post(
      reportBody({
        identifiers: [
          { label: 'phone', value: phone },
          { label: 'phone', value: `+234${phone.slice(1)}` },
        ],
      }),
    );
    expect(twice.statusCode).toBe(400);
    expect(twice.json().data.errors).toEqual([
      { field: 'identifiers/1/value', message: expect.stringContaining('identifiers/0/value') },
    ]);
  });

  it('refuses unknown fields, naming them, and values of the wrong type', async () => {
    const res = await post({
      ...reportBody({ identifiers: [{ label: 'bvn', value: `22${digits(9)}`, note: 'x' }] }),
      severity: 'high',
      showUploaderInfo: 'yes',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().data.errors).toEqual(
      expect.arrayContaining([
        { field: 'severity', message: 'is not an accepted field' },
        { field: 'identifiers/0/note', message: 'is not an accepted field' },
        { field: 'showUploaderInfo', message: 'must be a boolean' },
      ]),
    );
    const missing = await post({});
    expect(
      missing
        .json()
        .data.errors.map((e: { field: string }) => e.field)
        .sort(),
    ).toEqual(['fraudReason', 'fraudType', 'identifiers']);
  });

  it('creates a draft when asked', async () => {
    const res = await post(reportBody({ status: 'draft' }));
    expect(res.statusCode).toBe(201);
    expect(res.json().data.status).toBe('draft');
  });

  it('writes the report and its identifiers in one transaction: a failure leaves nothing', async () => {
    const marker = `Transaction probe ${digits(8)} `.padEnd(60, '.');
    // A trigger that refuses the second identifier row makes the insert fail half-way.
    await sql`create or replace function refuse_nin() returns trigger language plpgsql as $$
      begin if new.label = 'nin' then raise exception 'refused by test trigger'; end if; return new; end $$`.execute(
      t.database.db,
    );
    await sql`create trigger refuse_nin before insert on report_identifiers for each row execute function refuse_nin()`.execute(
      t.database.db,
    );
    try {
      const res = await post(
        reportBody({
          fraudReason: marker,
          identifiers: [
            { label: 'bvn', value: `22${digits(9)}` },
            { label: 'nin', value: digits(11) },
          ],
        }),
      );
      expect(res.statusCode).toBe(500);
      expect(res.json().data.code).toBe('INTERNAL');
    } finally {
      await sql`drop trigger refuse_nin on report_identifiers`.execute(t.database.db);
    }
    const left = await t.database.db.selectFrom('reports').select('id').where('fraud_reason_masked', '=', marker).execute();
    expect(left).toEqual([]);
  });
});

describe('Idempotency-Key', () => {
  const withKey = (k: string, apiKey = company.apiKey) => ({ ...key(apiKey), 'idempotency-key': k });

  it('replays the first response for the same key and body, creating one report', async () => {
    const k = `create-${digits(10)}`;
    const body = reportBody({ identifiers: [{ label: 'bvn', value: `22${digits(9)}` }] });
    const first = await post(body, withKey(k));
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    // The same body with its keys in another order is the same request.
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const again = await post(reordered, withKey(k));
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    const rows = await t.database.db.selectFrom('reports').select('id').where('id', '=', first.json().data.id).execute();
    expect(rows).toHaveLength(1);
  });

  it('says a repeated Idempotency-Key header is given more than once, and creates nothing', async () => {
    const before = await t.database.db
      .selectFrom('reports')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const res = await post(reportBody(), { ...key(company.apiKey), 'idempotency-key': ['k-one', 'k-two'] as unknown as string });
    expect(res.statusCode).toBe(400);
    expect(res.json().data.errors).toEqual([{ field: 'Idempotency-Key', message: 'is given more than once; send one' }]);
    const after = await t.database.db
      .selectFrom('reports')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });

  it('answers 422 for the same key with another body', async () => {
    const k = `mismatch-${digits(10)}`;
    expect((await post(reportBody(), withKey(k))).statusCode).toBe(201);
    const other = await post(reportBody({ fraudType: 'theft' }), withKey(k));
    expect(other.statusCode).toBe(422);
    expect(other.json().data.code).toBe('IDEMPOTENCY_MISMATCH');
  });

  it('answers 409 while the first request with the key is still in flight', async () => {
    const k = `in-flight-${digits(10)}`;
    const body = reportBody();
    await t.database.db
      .insertInto('idempotency_keys')
      .values({ company_id: company.companyId, key: k, request_hash: t.app.crypto.requestDigest(body), state: 'in_flight' })
      .execute();
    const res = await post(body, withKey(k));
    expect(res.statusCode).toBe(409);
    expect(res.json().data.code).toBe('IDEMPOTENCY_IN_FLIGHT');
    expect(res.headers['retry-after']).toBe('1');
  });

  /** An in-flight marker held by a process whose lease ends at `leaseUntil` (undefined: no such process). */
  async function markerOf(body: Record<string, unknown>, leaseUntil: Date | 'infinity' | undefined) {
    const k = `owned-${digits(10)}`;
    const instance = randomUUID();
    if (leaseUntil !== undefined) {
      await t.database.db
        .insertInto('service_instances')
        .values({ id: instance, lease_until: leaseUntil === 'infinity' ? sql<Date>`'infinity'::timestamptz` : leaseUntil })
        .execute();
    }
    await t.database.db
      .insertInto('idempotency_keys')
      .values({
        company_id: company.companyId,
        key: k,
        request_hash: t.app.crypto.requestDigest(body),
        state: 'in_flight',
        claimed_by: instance,
        claim_id: randomUUID(),
      })
      .execute();
    return k;
  }

  it('answers 409 with Retry-After while the process holding the key is alive', async () => {
    const body = reportBody();
    const res = await post(body, withKey(await markerOf(body, new Date(Date.now() + 3_600_000))));
    expect(res.statusCode).toBe(409);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.json().data).toMatchObject({ code: 'IDEMPOTENCY_IN_FLIGHT', retryAfter: 1 });
  });

  it('takes over at once a key whose process died (gone, or its lease lapsed), creating the report once', async () => {
    for (const lease of [undefined, new Date(Date.now() - 1_000)]) {
      const body = reportBody();
      const k = await markerOf(body, lease);
      const retried = await post(body, withKey(k));
      expect(retried.statusCode).toBe(201);
      const again = await post(body, withKey(k));
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.json().data.id).toBe(retried.json().data.id);
    }
  });

  it('waits for a holder whose lease is about to lapse (a process killed a moment ago), then creates the report', async () => {
    const body = reportBody();
    const k = await markerOf(body, new Date(Date.now() + 800));
    const retried = await post(body, withKey(k));
    expect(retried.statusCode, retried.body).toBe(201);
    const again = await post(body, withKey(k));
    expect(again.json().data.id).toBe(retried.json().data.id);
  });

  it('does not store a failed request: the same key may be retried with a corrected body', async () => {
    const k = `retry-${digits(10)}`;
    const failed = await post(reportBody({ identifiers: [{ label: 'bvn', value: '123' }] }), withKey(k));
    expect(failed.statusCode).toBe(400);
    const fixed = await post(reportBody(), withKey(k));
    expect(fixed.statusCode).toBe(201);
    expect(fixed.headers['idempotent-replayed']).toBeUndefined();
  });

  it('scopes keys to the company', async () => {
    const other = await createCompany(t);
    const k = `shared-${digits(10)}`;
    const body = reportBody();
    const mine = await post(body, withKey(k));
    const theirs = await post(body, withKey(k, other.apiKey));
    expect(theirs.statusCode).toBe(201);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.json().data.id).not.toBe(mine.json().data.id);
    expect(theirs.json().data.companyId).toBe(other.companyId);
  });

  it('refuses a key that is not 1 to 255 printable characters', async () => {
    const res = await post(reportBody(), withKey('x'.repeat(256)));
    expect(res.statusCode).toBe(400);
    expect(res.json().data.errors[0].field).toBe('Idempotency-Key');
  });
});
