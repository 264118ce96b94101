import { randomUUID } from 'node:crypto';
import { type KyselyPlugin, sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Keyring, type SealContext } from '../src/crypto/keyring.js';
import { type Crypto, loadCrypto } from '../src/crypto/load-crypto.js';
import { newRootKeyText } from '../src/crypto/root-key.js';
import { rotateKeys } from '../src/crypto/rotation.js';
import type { SealedColumn } from '../src/crypto/sealed-columns.js';
import { createTestDatabase, engine, type TestDatabase } from './helpers/test-database.js';

let database: TestDatabase;
let crypto: Crypto;
beforeAll(async () => {
  database = await createTestDatabase();
  crypto = await loadCrypto({
    db: database.db,
    config: { masterKey: newRootKeyText(), dataDir: database.dataDir },
    engine: database.engine,
  });
  await sql`create table probe_identifiers (
    id uuid primary key default gen_random_uuid(), company_id text not null, report_id text not null,
    label text not null, value_sealed text)`.execute(database.db);
  await sql`create table probe_contacts (id bigserial primary key, owner text not null, email_sealed text)`.execute(database.db);
});
afterAll(() => database.close());

/** The registry entries a later module would add in one line each. */
const columns: SealedColumn[] = [
  {
    table: 'probe_identifiers',
    idColumn: 'id',
    tokenColumn: 'value_sealed',
    contextColumns: ['company_id', 'report_id', 'label'],
    context: (r) => ({ companyId: String(r.company_id), recordId: String(r.report_id), label: String(r.label) }),
  },
  {
    table: 'probe_contacts',
    idColumn: 'id',
    tokenColumn: 'email_sealed',
    contextColumns: ['owner', 'id'],
    context: (r) => ({ companyId: String(r.owner), recordId: String(r.id), label: 'victim.email' }),
  },
];

interface Stored {
  table: string;
  id: string;
  clear: string;
  token: string;
  context: SealContext;
}
let stored: Stored[] = [];

beforeEach(async () => {
  await sql`truncate probe_identifiers, probe_contacts`.execute(database.db);
  stored = [];
  for (let i = 0; i < 23; i++) {
    const row = { id: randomUUID(), company_id: `c${i % 3}`, report_id: randomUUID(), label: i % 2 ? 'bvn' : 'phone' };
    const clear = `value-${i}`;
    const context = { companyId: row.company_id, recordId: row.report_id, label: row.label };
    const token = crypto.keyring.seal(clear, context);
    await sql`insert into probe_identifiers values (${row.id}, ${row.company_id}, ${row.report_id}, ${row.label}, ${token})`.execute(
      database.db,
    );
    stored.push({ table: 'probe_identifiers', id: row.id, clear, token, context });
  }
  await sql`insert into probe_identifiers (company_id, report_id, label, value_sealed) values ('c0', 'r-null', 'email', null)`.execute(
    database.db,
  );
  for (let i = 0; i < 9; i++) {
    const { rows } = await sql<{ id: number }>`insert into probe_contacts (owner) values (${`owner-${i}`}) returning id`.execute(
      database.db,
    );
    const id = String(rows[0]?.id);
    const clear = `person${i}@example.com`;
    const context = { companyId: `owner-${i}`, recordId: id, label: 'victim.email' };
    const token = crypto.keyring.seal(clear, context);
    await sql`update probe_contacts set email_sealed = ${token} where id = ${Number(id)}`.execute(database.db);
    stored.push({ table: 'probe_contacts', id, clear, token, context });
  }
});

async function tokens(): Promise<Map<string, string>> {
  const a = await sql<{
    id: string;
    t: string;
  }>`select id::text as id, value_sealed as t from probe_identifiers where value_sealed is not null`.execute(database.db);
  const b = await sql<{ id: string; t: string }>`select id::text as id, email_sealed as t from probe_contacts`.execute(
    database.db,
  );
  return new Map([...a.rows, ...b.rows].map((r) => [r.id, r.t]));
}

async function openAll(): Promise<string[]> {
  const { rows } = await sql<Record<string, unknown> & { id: string; value_sealed: string }>`
    select id::text, company_id, report_id, label, value_sealed from probe_identifiers where value_sealed is not null`.execute(
    database.db,
  );
  const contacts = await sql<Record<string, unknown> & { id: string; email_sealed: string }>`
    select id::text, owner, email_sealed from probe_contacts`.execute(database.db);
  return [
    ...rows.map((r) => crypto.keyring.open(r.value_sealed, columns[0]?.context(r) as never)),
    ...contacts.rows.map((r) => crypto.keyring.open(r.email_sealed, columns[1]?.context(r) as never)),
  ].sort();
}

const keyRows = () => database.db.selectFrom('encryption_keys').selectAll().orderBy('id').execute();

describe('crypto rotate', () => {
  it('adds a key, makes it primary and re-encrypts every sealed value in batches; old tokens still open', async () => {
    const before = crypto.keyring.primaryKeyId;
    const progress: number[] = [];
    let total = -1;
    const summary = await rotateKeys({
      db: database.db,
      crypto,
      columns,
      batchSize: 5,
      onStart: (info) => {
        total = info.total;
      },
      onProgress: (done) => progress.push(done),
    });
    const next = `k${Number(before.slice(1)) + 1}`;
    expect(summary).toMatchObject({ keyId: next, previousKeyId: before, resumed: false, reencrypted: 32, skipped: 0, failed: 0 });
    expect(summary.columns).toEqual([
      { table: 'probe_identifiers', column: 'value_sealed', reencrypted: 23, skipped: 0, failed: 0 },
      { table: 'probe_contacts', column: 'email_sealed', reencrypted: 9, skipped: 0, failed: 0 },
    ]);
    expect(total).toBe(32);
    expect(progress.at(-1)).toBe(32);
    expect(progress.length).toBeGreaterThanOrEqual(7);

    for (const token of (await tokens()).values()) expect(Keyring.keyIdOf(token)).toBe(next);
    expect(await openAll()).toEqual(stored.map((s) => s.clear).sort());
    // The tokens sealed before the rotation still open, and new values carry the new key id.
    for (const s of stored) expect(crypto.keyring.open(s.token, s.context)).toBe(s.clear);
    expect(Keyring.keyIdOf(crypto.keyring.seal('new', { companyId: 'c', recordId: 'r', label: 'bvn' }))).toBe(next);

    const keys = await keyRows();
    expect(keys.filter((k) => k.is_primary).map((k) => k.id)).toEqual([next]);
    expect(keys.find((k) => k.id === before)?.retired_at).toBeInstanceOf(Date);
    expect(keys.find((k) => k.id === next)?.reencrypted_at).toBeInstanceOf(Date);
  });

  it('continues an interrupted rotation on the next run instead of adding another key', async () => {
    const before = crypto.keyring.primaryKeyId;
    const next = `k${Number(before.slice(1)) + 1}`;
    await expect(
      rotateKeys({
        db: database.db,
        crypto,
        columns,
        batchSize: 4,
        onProgress: (done) => {
          if (done >= 8) throw new Error('interrupted');
        },
      }),
    ).rejects.toThrow('interrupted');
    const midway = [...(await tokens()).values()].map((t) => Keyring.keyIdOf(t));
    expect(midway.filter((id) => id === next)).toHaveLength(8);
    expect(midway.filter((id) => id === before)).toHaveLength(24);
    expect((await keyRows()).find((k) => k.id === next)).toMatchObject({ is_primary: true, reencrypted_at: null });
    // Values stay readable half-way.
    expect(await openAll()).toEqual(stored.map((s) => s.clear).sort());

    const resumed = await rotateKeys({ db: database.db, crypto, columns, batchSize: 4 });
    expect(resumed).toMatchObject({ keyId: next, resumed: true, reencrypted: 24, failed: 0 });
    for (const token of (await tokens()).values()) expect(Keyring.keyIdOf(token)).toBe(next);
    expect((await keyRows()).find((k) => k.id === next)?.reencrypted_at).toBeInstanceOf(Date);

    const again = await rotateKeys({ db: database.db, crypto, columns });
    expect(again).toMatchObject({ keyId: `k${Number(next.slice(1)) + 1}`, resumed: false, reencrypted: 32 });
  });

  it('reports a value that does not open (copied from another row) and leaves the rotation unfinished', async () => {
    const [a, b] = stored;
    await sql`update probe_identifiers set value_sealed = ${a?.token} where id = ${b?.id}`.execute(database.db);
    const summary = await rotateKeys({ db: database.db, crypto, columns });
    expect(summary).toMatchObject({ reencrypted: 31, failed: 1, failures: [`probe_identifiers.value_sealed#${b?.id}`] });
    expect((await keyRows()).find((k) => k.id === summary.keyId)?.reencrypted_at).toBeNull();
    expect((await tokens()).get(b?.id as string)).toBe(a?.token);

    // Once the row is repaired, the next run finishes the same rotation.
    const context = { companyId: 'c1', recordId: 'fixed', label: 'bvn' };
    await sql`update probe_identifiers set company_id = 'c1', report_id = 'fixed', label = 'bvn',
      value_sealed = ${crypto.keyring.seal('repaired', context)} where id = ${b?.id}`.execute(database.db);
    const finished = await rotateKeys({ db: database.db, crypto, columns });
    expect(finished).toMatchObject({ keyId: summary.keyId, resumed: true, reencrypted: 0, failed: 0 });
    expect((await keyRows()).find((k) => k.id === summary.keyId)?.reencrypted_at).toBeInstanceOf(Date);
  });

  it.runIf(engine === 'server')('leaves alone a value rewritten by someone else between its read and its write', async () => {
    const [victim] = stored as [Stored];
    const pg = (await import('pg')).default;
    const other = new pg.Client({
      connectionString: process.env.TEST_DATABASE_URL,
      options: `-c search_path=${database.schema}`,
    });
    await other.connect();
    let rewritten = false;
    // Once the batch holding the victim has been read, a request re-seals the victim on another connection.
    const interleave: KyselyPlugin = {
      transformQuery: (args) => args.node,
      async transformResult(args) {
        if (!rewritten && args.result.rows.some((row) => (row as { id?: unknown }).id === victim.id)) {
          rewritten = true;
          const fresh = crypto.keyring.seal('rewritten', victim.context);
          await other.query('update probe_identifiers set value_sealed = $1 where id = $2', [fresh, victim.id]);
        }
        return args.result;
      },
    };
    try {
      const summary = await rotateKeys({ db: database.db.withPlugin(interleave), crypto, columns, batchSize: 100 });
      expect(rewritten).toBe(true);
      expect(summary).toMatchObject({ reencrypted: 31, skipped: 1, failed: 0 });
      expect(crypto.keyring.open((await tokens()).get(victim.id) as string, victim.context)).toBe('rewritten');
    } finally {
      await other.end();
    }
  });
});
