import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { rewriteTables } from '../src/db/rewrite-tables.js';
import { createTestDatabase } from './helpers/test-database.js';

const fileOf = async (db: Parameters<typeof rewriteTables>[0]) =>
  (await sql<{ node: string }>`select pg_relation_filenode('rewrite_probe')::text as node`.execute(db)).rows[0]?.node;

describe('rewriting a table cleaned of clear text (decision 0135)', () => {
  it('rewrites a table the role owns, and tells the owner what to run when the role does not own it', async () => {
    const d = await createTestDatabase();
    const role = `redflag_not_owner_${randomBytes(4).toString('hex')}`;
    try {
      await sql`create table rewrite_probe (id int primary key, note text)`.execute(d.db);
      await sql`insert into rewrite_probe values (1, 'a note')`.execute(d.db);
      await sql`create role ${sql.id(role)}`.execute(d.db);
      await sql`grant usage on schema ${sql.id(d.schema ?? 'public')} to ${sql.id(role)}`.execute(d.db);
      await sql`grant all on rewrite_probe to ${sql.id(role)}`.execute(d.db);
      const told: string[] = [];

      // Another role: PostgreSQL would only warn and skip it; the owner is told instead.
      const before = await fileOf(d.db);
      await d.db.connection().execute(async (connection) => {
        await sql`set role ${sql.id(role)}`.execute(connection);
        try {
          await rewriteTables(connection, ['rewrite_probe'], (line) => told.push(line));
        } finally {
          await sql`reset role`.execute(connection);
        }
      });
      expect(told).toEqual([
        'redflag: rewrite_probe still holds old copies of texts now sealed; its owner should run VACUUM FULL rewrite_probe;',
      ]);
      expect(await fileOf(d.db)).toBe(before);

      // The owner: the table is written anew (a new file), silently.
      await rewriteTables(d.db, ['rewrite_probe'], (line) => told.push(line));
      expect(told).toHaveLength(1);
      expect(await fileOf(d.db)).not.toBe(before);
      expect((await sql<{ note: string }>`select note from rewrite_probe`.execute(d.db)).rows).toEqual([{ note: 'a note' }]);
    } finally {
      await sql`drop table if exists rewrite_probe`.execute(d.db);
      await sql`drop owned by ${sql.id(role)}`.execute(d.db).catch(() => {});
      await sql`drop role if exists ${sql.id(role)}`.execute(d.db);
      await d.close();
    }
  });
});
