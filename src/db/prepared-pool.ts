import { createHash } from 'node:crypto';
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';

const names = new Map<string, string>();

/** A stable statement name for a SQL text (PostgreSQL keeps names under 64 bytes). */
function statementName(sql: string): string {
  let name = names.get(sql);
  if (name === undefined) {
    name = `k${createHash('sha256').update(sql).digest('base64url').slice(0, 32)}`;
    if (names.size < 10_000) names.set(sql, name);
  }
  return name;
}

/**
 * Kysely sends every query unnamed, so PostgreSQL parses and plans it on each call. Naming each
 * statement after its SQL lets `pg` prepare it once per connection and only bind afterwards;
 * on PGlite this was 2–7× faster for point lookups. Queries that stream rows are left alone.
 */
export function preparingPool(pool: pg.Pool): PostgresPool {
  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect();
      return {
        query(sqlOrCursor: unknown, parameters?: ReadonlyArray<unknown>) {
          if (typeof sqlOrCursor !== 'string') return client.query(sqlOrCursor as pg.Submittable) as never;
          return client.query({
            name: statementName(sqlOrCursor),
            text: sqlOrCursor,
            values: parameters as unknown[],
          }) as never;
        },
        release: () => client.release(),
      } as PostgresPoolClient;
    },
    end: () => pool.end(),
  };
}
