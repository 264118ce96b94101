import { PostgresIntrospector, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, serverSchemaName, serverUrl, type TestDatabase } from './helpers/test-database.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database.close();
});

/** Another session (another app on the server, a test file finishing) drops a schema of its own. */
async function dropElsewhere(name: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`drop schema "${name}" cascade`);
  } finally {
    await client.end();
  }
}

describe('catalogue introspection (what the migrator asks before it runs)', () => {
  it('sees its own tables, the migrator’s bookkeeping included only when asked', async () => {
    const tables = await database.db.introspection.getTables({ withInternalKyselyTables: true });
    const names = tables.map((t) => t.name);
    expect(names).toContain('reports');
    expect(names).toContain('kysely_migration');
    expect((await database.db.introspection.getTables()).map((t) => t.name)).not.toContain('kysely_migration');
    expect(new Set(tables.map((t) => t.schema)).size).toBe(1);
    const reports = tables.find((t) => t.name === 'reports');
    expect(reports?.columns.some((c) => c.name === 'id')).toBe(true);
  });

  it.skipIf(!serverUrl)(
    'is not failed by a schema another session drops while it looks (Kysely’s own introspector is)',
    async () => {
      const doomed = [serverSchemaName(), serverSchemaName()];
      for (const name of doomed) {
        await sql.raw(`create schema "${name}"`).execute(database.db);
        await sql.raw(`create table "${name}".t (x int)`).execute(database.db);
      }
      // A repeatable-read snapshot taken before the drop still lists the schemas; a lookup by name
      // afterwards does not find them. That is the window a concurrent drop opens, held open.
      await database.db
        .transaction()
        .setIsolationLevel('repeatable read')
        .execute(async (trx) => {
          await sql`select 1`.execute(trx);
          await dropElsewhere(doomed[0] as string);
          await expect(new PostgresIntrospector(trx).getTables({ withInternalKyselyTables: true })).rejects.toThrow(
            /does not exist/,
          );
        });
      await database.db
        .transaction()
        .setIsolationLevel('repeatable read')
        .execute(async (trx) => {
          await sql`select 1`.execute(trx);
          await dropElsewhere(doomed[1] as string);
          const tables = await trx.introspection.getTables({ withInternalKyselyTables: true });
          expect(tables.map((t) => t.name)).toContain('kysely_migration');
        });
    },
  );
});
