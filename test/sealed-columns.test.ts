import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sealedColumns } from '../src/crypto/sealed-columns.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

describe('the registry of sealed columns', () => {
  it('lists every column of the schema named *_token, so crypto rotate misses none', async () => {
    const { rows } = await sql<{ table_name: string; column_name: string }>`
      select c.table_name, c.column_name from information_schema.columns c
      join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
      where c.table_schema = current_schema() and t.table_type = 'BASE TABLE' and c.column_name like '%\\_token'
      order by 1, 2`.execute(t.database.db);
    expect(rows.length).toBeGreaterThan(10);
    const registered = new Set(sealedColumns.map((c) => `${c.table}.${c.tokenColumn}`));
    const missing = rows.map((r) => `${r.table_name}.${r.column_name}`).filter((name) => !registered.has(name));
    expect(missing).toEqual([]);
  });
});
