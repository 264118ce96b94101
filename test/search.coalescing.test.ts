import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCrypto } from '../src/crypto/load-crypto.js';
import { DatabaseWaitTimeoutError, isDatabaseUnavailable } from '../src/db/unavailable.js';
import { shippedBankDirectory } from '../src/identifiers/normalize.js';
import { createSealedIdentifiers, type SearchKey } from '../src/identifiers/sealed-identifiers.js';
import { searchReports, searchReportsAudited, searchReportsMany } from '../src/modules/search/search.repository.js';
import { createSearchCoalescer, inShapeGroups, MAX_GROUP } from '../src/modules/search/search-coalescer.js';
import { digits, localPhone, nuban } from './helpers/identifiers.js';
import { createCompany } from './helpers/principals.js';
import { createReport, search } from './helpers/reports.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

let t: TestApp;
let a: Awaited<ReturnType<typeof createCompany>>;
let b: Awaited<ReturnType<typeof createCompany>>;
const shared = localPhone();
const account = nuban();
const email = `mule.${digits(6)}@example.com`;

beforeAll(async () => {
  t = await buildTestApp();
  a = await createCompany(t, { businessName: 'Alpha Microfinance Bank' });
  b = await createCompany(t, { businessName: 'Beta Fintech' });
  for (let n = 0; n < 3; n++) {
    await createReport(t, n % 2 ? b.apiKey : a.apiKey, {
      identifiers: [
        { label: 'phone', value: shared },
        { label: 'email', value: email },
      ],
      fraudType: n ? 'hacker' : 'identity_theft',
    });
  }
  await createReport(t, b.apiKey, { identifiers: [{ label: 'account', value: `${account}_access-bank` }] });
  await createReport(t, a.apiKey, { identifiers: [{ label: 'phone', value: localPhone() }], status: 'draft' });
});
afterAll(() => t.close());

/** The searches a screening desk sends at once: hits of every size, misses, both index columns. */
function values(): Array<{ identifier: string; value: string }> {
  return [
    { identifier: 'phone', value: shared },
    { identifier: 'email', value: email },
    { identifier: 'phone', value: localPhone() },
    { identifier: 'account', value: account },
    { identifier: 'account', value: `${account}_access-bank` },
    { identifier: 'bvn', value: `22${digits(9)}` },
    { identifier: 'account', value: nuban() },
    { identifier: 'phone', value: `+234 ${shared.slice(1)}` },
  ];
}

describe('searches in one statement (searchReportsMany)', () => {
  it('answers each key word for word as its own statement does, in the keys order, for both index columns', async () => {
    const crypto = await loadCrypto({ db: t.database.db, config: t.config, engine: t.database.engine });
    const sealed = createSealedIdentifiers({ crypto, banks: shippedBankDirectory() });
    const keys = values().map(({ identifier, value }) => {
      const found = sealed.searchKey(identifier as SearchKey['label'], value);
      if (!found.ok) throw new Error(found.message);
      return found.key;
    });
    const groups = inShapeGroups(keys, (key) => key);
    expect(groups.map((g) => g[0]?.column).sort()).toEqual(['blind_index', 'nuban_index']);
    for (const group of groups) {
      const together = await searchReportsMany(t.database.db, group, 30);
      const alone = await Promise.all(group.map((key) => searchReports(t.database.db, key, 30)));
      expect(together).toEqual(alone);
    }
    // During `crypto reindex` a key has two digests (old and new key version): the grouped statement takes both.
    const twoDigests = keys.map((key) => ({ ...key, indexes: [...key.indexes, randomBytes(32)] }));
    for (const group of inShapeGroups(twoDigests, (key) => key)) {
      const alone = await Promise.all(group.map((key) => searchReports(t.database.db, key, 30)));
      expect(await searchReportsMany(t.database.db, group, 30)).toEqual(alone);
    }
    await expect(searchReportsMany(t.database.db, [keys[0] as SearchKey, twoDigests[0] as SearchKey], 30)).rejects.toThrow(
      /one shape/,
    );
    const counts = (await searchReportsMany(t.database.db, groups[0] as SearchKey[], 30)).map((r) => r.resultCount);
    expect(counts.some((n) => n === 3)).toBe(true);
    expect(counts.some((n) => n === 0)).toBe(true);

    // The summary alone (a screening job's): the same summary and count, no lists.
    for (const group of groups) {
      const whole = await searchReportsMany(t.database.db, group, 30);
      for (const summaries of [
        await searchReportsMany(t.database.db, group, 30, 'summary'),
        await Promise.all(group.map((key) => searchReports(t.database.db, key, 30, 'summary'))),
      ]) {
        expect(summaries.map((r) => JSON.parse(r.body))).toEqual(
          whole.map((r) => ({ ...JSON.parse(r.body), reports: [], publicReports: [] })),
        );
        expect(summaries.map((r) => r.resultCount)).toEqual(whole.map((r) => r.resultCount));
      }
    }
  });
});

describe('single searches in one statement with their audit rows (searchReportsAudited)', () => {
  it('answers as searchReportsMany and writes one row per search, a key searched twice once per search', async () => {
    const crypto = await loadCrypto({ db: t.database.db, config: t.config, engine: t.database.engine });
    const sealed = createSealedIdentifiers({ crypto, banks: shippedBankDirectory() });
    const keyOf = (label: SearchKey['label'], value: string) => {
      const found = sealed.searchKey(label, value);
      if (!found.ok) throw new Error(found.message);
      return found.key;
    };
    // During `crypto reindex` a key has two digests; its row takes the first, the current one.
    const keys = [keyOf('phone', shared), keyOf('bvn', `22${digits(9)}`)].map((key) => ({
      ...key,
      indexes: [...key.indexes, randomBytes(32)],
    }));
    const run = randomBytes(4).toString('hex');
    const userId = randomUUID();
    const byKey = { companyId: a.companyId, operatorId: null, keyId: a.keyId, userId: null };
    const byUser = { companyId: b.companyId, operatorId: null, keyId: null, userId };
    const searches = [
      { slot: 0, audit: { ...byKey, requestId: `${run}-1` } },
      { slot: 1, audit: { ...byUser, requestId: `${run}-2` } },
      { slot: 0, audit: { ...byUser, requestId: `${run}-3` } },
    ];
    const found = await searchReportsAudited(t.database.db, keys, searches, 30);
    expect(found).toEqual(await searchReportsMany(t.database.db, keys, 30));
    const rows = await t.database.db
      .selectFrom('audit_events')
      .select(['request_id', 'action', 'label', 'blind_index', 'result_count', 'company_id', 'operator_id', 'key_id', 'user_id'])
      .where('request_id', 'like', `${run}-%`)
      .orderBy('request_id')
      .execute();
    const row = (n: number, key: SearchKey, resultCount: number, who: typeof byKey | typeof byUser) => ({
      request_id: `${run}-${n}`,
      action: 'search',
      label: key.label,
      blind_index: key.indexes[0],
      result_count: resultCount,
      company_id: who.companyId,
      operator_id: who.operatorId,
      key_id: who.keyId,
      user_id: who.userId,
    });
    const [shared0, miss] = keys as [SearchKey, SearchKey];
    expect(rows).toEqual([row(1, shared0, 3, byKey), row(2, miss, 0, byUser), row(3, shared0, 3, byUser)]);
    // A search naming no key of the statement is refused before it runs (it would answer without a row).
    await expect(
      searchReportsAudited(t.database.db, keys, [...searches, { slot: 2, audit: { ...byKey, requestId: `${run}-4` } }], 30),
    ).rejects.toThrow(/name every key/);
  });
});

describe('single searches under load', () => {
  it('answer exactly as one at a time when they share statements, each with its own audit row', async () => {
    const sent = Array.from({ length: 5 }, values).flat();
    const auditsBefore = await auditRows();
    const together = await Promise.all(sent.map(({ identifier, value }) => search(t, a.apiKey, identifier, value)));
    expect(await auditRows()).toBe(auditsBefore + sent.length);
    for (const [n, { identifier, value }] of sent.entries()) {
      expect(together[n]?.statusCode).toBe(200);
      const alone = await search(t, a.apiKey, identifier, value);
      // Word for word: the same bytes as the search sent alone.
      expect(together[n]?.body, `${identifier} ${n}`).toBe(alone.body);
    }
    expect(together[0]?.json().data.summary.totalReports).toBe(3);
  });
});

describe('createSearchCoalescer', () => {
  const phoneKey = (n: number): SearchKey => ({ label: 'phone', column: 'blind_index', indexes: [Buffer.alloc(32, n)] });
  const nubanKey = (n: number): SearchKey => ({ label: 'account', column: 'nuban_index', indexes: [Buffer.alloc(32, n)] });
  /** One slot; each statement takes 5 ms and is recorded by its keys' first digest byte. */
  function recording(answerOf: (key: SearchKey) => string) {
    const statements: number[][] = [];
    const coalescer = createSearchCoalescer({
      inFlight: 1,
      run: async (keys: SearchKey[]) => {
        statements.push(keys.map((k) => k.indexes[0]?.[0] as number));
        await new Promise((resolve) => setTimeout(resolve, 5));
        return keys.map(answerOf);
      },
    });
    return { coalescer, statements };
  }

  /** The end of this turn of the event loop: searches asked for before it have gone to their statement. */
  const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

  it('runs a search at once when none runs, and the ones that wait in groups of one shape, at most MAX_GROUP', async () => {
    const { coalescer, statements } = recording((k) => `${k.column}:${k.indexes[0]?.[0]}`);
    const first = coalescer.search(phoneKey(0));
    await nextTurn();
    expect(statements).toEqual([[0]]);
    const keys = [...Array.from({ length: 20 }, (_, n) => phoneKey(n + 1)), nubanKey(100), nubanKey(101)];
    const answers = await Promise.all([first, ...keys.map((key) => coalescer.search(key))]);
    expect(answers).toEqual([phoneKey(0), ...keys].map((k) => `${k.column}:${k.indexes[0]?.[0]}`));
    expect(statements.slice(1).map((s) => s.length)).toEqual([MAX_GROUP, 20 - MAX_GROUP, 2]);
    expect(statements[3]).toEqual([100, 101]);
  });

  /** Two slots; the first statement runs until `releaseFirst()`, the others answer at once. */
  function firstStatementHeld() {
    const statements: number[][] = [];
    let release: () => void = () => {};
    const coalescer = createSearchCoalescer({
      inFlight: 2,
      run: async (keys: SearchKey[]) => {
        statements.push(keys.map((k) => k.indexes[0]?.[0] as number));
        if (statements.length === 1) await new Promise<void>((resolve) => (release = resolve));
        return keys.map((k) => `answer ${k.indexes[0]?.[0]}`);
      },
    });
    return { coalescer, statements, releaseFirst: () => release() };
  }

  it('sends the searches that arrive in one turn of the event loop in one statement', async () => {
    const { coalescer, statements } = recording((k) => `answer ${k.indexes[0]?.[0]}`);
    const answers = await Promise.all([1, 2, 3].map((n) => coalescer.search(phoneKey(n))));
    expect(answers).toEqual(['answer 1', 'answer 2', 'answer 3']);
    expect(statements).toEqual([[1, 2, 3]]);
  });

  it('starts a statement beside a running one only for a full group; fewer wait for it', async () => {
    const { coalescer, statements, releaseFirst } = firstStatementHeld();
    const first = coalescer.search(phoneKey(0));
    await nextTurn();
    const few = [1, 2, 3].map((n) => coalescer.search(phoneKey(n)));
    await nextTurn();
    // A slot is free, but three searches are not worth a statement's fixed cost beside the running one.
    expect(statements).toEqual([[0]]);
    const full = Array.from({ length: MAX_GROUP }, (_, n) => coalescer.search(phoneKey(10 + n)));
    await nextTurn();
    // Now a full group waits (the oldest first): it takes the second slot while the first still runs.
    expect(statements).toHaveLength(2);
    expect(statements[1]).toEqual([1, 2, 3, ...Array.from({ length: MAX_GROUP - 3 }, (_, n) => 10 + n)]);
    releaseFirst();
    await expect(first).resolves.toBe('answer 0');
    expect(await Promise.all([...few, ...full])).toEqual(
      [1, 2, 3, ...Array.from({ length: MAX_GROUP }, (_, n) => 10 + n)].map((n) => `answer ${n}`),
    );
    expect(statements.slice(2)).toEqual([[23, 24, 25]]);
  });

  it("counts a full group in the oldest waiting search's shape, which is the one the next statement takes", async () => {
    const { coalescer, statements, releaseFirst } = firstStatementHeld();
    const first = coalescer.search(phoneKey(0));
    await nextTurn();
    const rest = [
      coalescer.search(nubanKey(100)),
      ...Array.from({ length: MAX_GROUP - 1 }, (_, n) => coalescer.search(phoneKey(n + 1))),
    ];
    await nextTurn();
    // Sixteen wait, but the oldest is alone in its shape: a second statement now would carry one search.
    expect(statements).toEqual([[0]]);
    releaseFirst();
    await Promise.all([first, ...rest]);
    expect(statements).toEqual([[0], [100], Array.from({ length: MAX_GROUP - 1 }, (_, n) => n + 1)]);
  });

  it('runs a key searched several times at once in one place of the statement, answering each', async () => {
    const { coalescer, statements } = recording((k) => `answer ${k.indexes[0]?.[0]}`);
    const first = coalescer.search(phoneKey(0));
    await nextTurn();
    const answers = await Promise.all([first, ...[7, 7, 8, 7].map((n) => coalescer.search(phoneKey(n)))]);
    expect(answers).toEqual(['answer 0', 'answer 7', 'answer 7', 'answer 8', 'answer 7']);
    expect(statements).toEqual([[0], [7, 8]]);
  });

  it("passes every search of a group with its own audit and its key's place, a repeated key once among the keys", async () => {
    const runs: Array<{ keys: number[]; searches: Array<{ slot: number; audit: string }> }> = [];
    const coalescer = createSearchCoalescer<string, string>({
      inFlight: 1,
      run: async (keys, searches) => {
        runs.push({ keys: keys.map((k) => k.indexes[0]?.[0] as number), searches });
        return keys.map((k) => `answer ${k.indexes[0]?.[0]}`);
      },
    });
    await coalescer.search(phoneKey(1), 'alone');
    const answers = await Promise.all([
      coalescer.search(phoneKey(7), 'first'),
      coalescer.search(phoneKey(8), 'second'),
      coalescer.search(phoneKey(7), 'third'),
    ]);
    expect(answers).toEqual(['answer 7', 'answer 8', 'answer 7']);
    expect(runs).toEqual([
      { keys: [1], searches: [{ slot: 0, audit: 'alone' }] },
      {
        keys: [7, 8],
        searches: [
          { slot: 0, audit: 'first' },
          { slot: 1, audit: 'second' },
          { slot: 0, audit: 'third' },
        ],
      },
    ]);
  });

  it('fails a search that waited longer than the wait limit as the database being unavailable', async () => {
    let release: () => void = () => {};
    const coalescer = createSearchCoalescer({
      inFlight: 1,
      waitLimitMs: 50,
      run: (keys: SearchKey[]) =>
        new Promise<string[]>((resolve) => {
          release = () => resolve(keys.map(() => 'late'));
        }),
    });
    const first = coalescer.search(phoneKey(1));
    await nextTurn();
    const waited = coalescer.search(phoneKey(2)).catch((error: unknown) => error);
    const error = await waited;
    expect(error).toBeInstanceOf(DatabaseWaitTimeoutError);
    expect(isDatabaseUnavailable(error)).toBe(true);
    release();
    await expect(first).resolves.toBe('late');
  });

  it('fails every search of a failed statement, and runs the next ones', async () => {
    let calls = 0;
    const coalescer = createSearchCoalescer({
      inFlight: 1,
      run: async (keys: SearchKey[]) => {
        calls++;
        await new Promise((resolve) => setTimeout(resolve, 5));
        if (calls === 2) throw new Error('the database went away');
        return keys.map(() => 'ok');
      },
    });
    const first = coalescer.search(phoneKey(1));
    await nextTurn();
    const outcomes = await Promise.allSettled([first, ...[2, 3].map((n) => coalescer.search(phoneKey(n)))]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
    await expect(coalescer.search(phoneKey(4))).resolves.toBe('ok');
  });
});

async function auditRows(): Promise<number> {
  // A single search's row is written by the statement that answers it (decision 0097).
  const row = await t.database.db
    .selectFrom('audit_events')
    .select((e) => e.fn.countAll<number>().as('n'))
    .where('action', '=', 'search')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
