import { createHash } from 'node:crypto';
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';
import { isDatabaseUnavailable, isStalePreparedStatement } from './unavailable.js';

const names = new Map<string, string>();

/**
 * Per connection, how many times PostgreSQL refused one of its prepared statements as stale (a
 * column added under it by another instance's migration): the statements are then named afresh,
 * so each is prepared again on its next use. The stale ones stay on the connection, unused; this
 * happens once per schema change.
 */
const generations = new WeakMap<object, number>();

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
export function preparingPool(
  pool: pg.Pool,
  options: {
    dropFailedConnections: boolean;
    /** Checked as each connection is handed over, queued requests included: an error refuses the work (disk-reserve.ts). */
    refusal?: () => Error | undefined;
  },
): PostgresPool {
  // pg-pool listens for errors only on idle clients. A connection that drops while a client is
  // checked out — between the statements of a transaction, or in the same packet as the
  // ReadyForQuery that handed it over, before our code runs — would emit 'error' with no listener,
  // and an unhandled 'error' event ends the process. Every client gets a listener as it is made.
  pool.on('connect', (client) => {
    client.on('error', () => {});
  });
  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect();
      const refused = options.refusal?.();
      if (refused) {
        client.release();
        throw refused;
      }
      let broken: Error | undefined;
      const onError = (error: Error) => {
        broken = error;
      };
      client.on('error', onError);
      // A connection that timed out or failed is not given back to the pool for the next request:
      // behind a partition it would only time out again.
      const note = (error: unknown) => {
        if (isStalePreparedStatement(error)) generations.set(client, (generations.get(client) ?? 0) + 1);
        else if (isDatabaseUnavailable(error)) broken = error as Error;
        throw error;
      };
      return {
        query(sqlOrCursor: unknown, parameters?: ReadonlyArray<unknown>) {
          if (typeof sqlOrCursor !== 'string') return client.query(sqlOrCursor as pg.Submittable) as never;
          return client
            .query({
              name: `${statementName(sqlOrCursor)}${generations.has(client) ? `g${generations.get(client)}` : ''}`,
              text: sqlOrCursor,
              values: parameters as unknown[],
            })
            .catch(note) as never;
        },
        release: () => {
          client.off('error', onError);
          // PGlite's one in-process connection is never replaced (a new client could not reach it).
          client.release(options.dropFailedConnections ? broken : undefined);
        },
      } as PostgresPoolClient;
    },
    end: () => pool.end(),
  };
}
