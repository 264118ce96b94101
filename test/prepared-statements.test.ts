import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { isDatabaseUnavailable } from '../src/db/unavailable.js';
import { createCompany } from './helpers/principals.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

it('a column added under a prepared statement (another instance migrating) is one 503, then the statement is prepared again', async () => {
  const db = t.database.db;
  // Read whole (`select *`), as a statement prepared on this connection.
  const readAll = () => db.selectFrom('companies').selectAll().limit(1).execute();
  await createCompany(t);
  const before = await readAll();
  expect(Object.keys(before[0] ?? {})).not.toContain('added_by_a_migration');

  await sql`alter table companies add column added_by_a_migration integer`.execute(db);
  try {
    // PostgreSQL refuses a prepared statement whose result changed shape, once on each connection
    // that prepared it (the embedded engine has one, a server's pool several): a fault to retry.
    const faults: unknown[] = [];
    for (let i = 0; i < 30; i++) await readAll().catch((error: unknown) => faults.push(error));
    expect(faults.length).toBeLessThanOrEqual(t.config.databaseMaxConnections);
    for (const fault of faults) expect(isDatabaseUnavailable(fault)).toBe(true);
    if (t.database.engine === 'embedded') expect(faults).toHaveLength(1);
    // Then every connection has prepared it again.
    for (let i = 0; i < 10; i++) expect(Object.keys((await readAll())[0] ?? {})).toContain('added_by_a_migration');
  } finally {
    await sql`alter table companies drop column added_by_a_migration`.execute(db);
  }
});
