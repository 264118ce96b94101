import { type Kysely, sql } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { SearchKey } from '../../identifiers/sealed-identifiers.js';
import type { SearchAudit } from './search-audit.repository.js';

/** One searchable item of a batch, by its position in the batch. */
export interface BatchKey {
  n: number;
  key: SearchKey;
}

const hex = (digest: Buffer) => digest.toString('hex');

/**
 * The positions whose identifier any report or public report carries at all, as a statement
 * fragment (`matched`, one column `n`). Every live index-key version's digest (several during
 * `crypto reindex`) goes in as JSON text: one parameter that both drivers pass alike. Four
 * semi-joins, each an index probe per item: written with OR, PostgreSQL hashes whole tables instead.
 * A position found may still have no visible report (a draft, an exited report): the full search
 * decides that, so this is a superset of what searches would find, never less.
 */
function matchedSql(keys: readonly BatchKey[]) {
  const blind = keys.flatMap(({ n, key }) =>
    key.column === 'blind_index' ? key.indexes.map((d) => ({ n, label: key.label, digest: hex(d) })) : [],
  );
  const nuban = keys.flatMap(({ n, key }) =>
    key.column === 'nuban_index' ? key.indexes.map((d) => ({ n, digest: hex(d) })) : [],
  );
  return sql`
    blind as (
      select * from json_to_recordset(${JSON.stringify(blind)}::json) as q(n int, label text, digest text)
    ), nuban as (
      select * from json_to_recordset(${JSON.stringify(nuban)}::json) as q(n int, digest text)
    ), matched as (
      select q.n from blind q where exists (
        select 1 from report_identifiers ri where ri.label = q.label and ri.blind_index = decode(q.digest, 'hex'))
      union
      select q.n from blind q where exists (
        select 1 from public_report_identifiers pi where pi.label = q.label and pi.blind_index = decode(q.digest, 'hex'))
      union
      select q.n from nuban q where exists (select 1 from report_identifiers ri where ri.nuban_index = decode(q.digest, 'hex'))
      union
      select q.n from nuban q where exists (
        select 1 from public_report_identifiers pi where pi.nuban_index = decode(q.digest, 'hex'))
    )`;
}

const positions = (rows: Array<{ n: number }>) => new Set(rows.map((row) => Number(row.n)));

/** The positions whose identifier anything carries (a screening job audits its rows itself). */
export async function matchingPositions(db: Kysely<Database>, keys: readonly BatchKey[]): Promise<Set<number>> {
  if (keys.length === 0) return new Set();
  const result = await sql<{ n: number }>`with ${matchedSql(keys)} select n from matched`.execute(db);
  return positions(result.rows);
}

/**
 * In one statement: the positions whose identifier anything carries (see matchedSql), and the
 * audit rows of all the others (searches that found nothing: count 0). Most identifiers screened
 * are nobody's (a bank's customers are mostly honest), so the batch runs the full search
 * (search.repository.ts; its audit row goes through search-audit-writer.ts) only for the positions returned. Like a
 * single search, the statement commits without waiting for its WAL flush (README, "Durability").
 */
export async function findMatchesAuditingMisses(
  db: Kysely<Database>,
  keys: readonly BatchKey[],
  audit: SearchAudit,
): Promise<Set<number>> {
  // What each position's audit row names: its label and its first (current) digest, as a single search's row does.
  const items = keys.map(({ n, key }) => ({ n, label: key.label, digest: hex(key.indexes[0] as Buffer) }));
  return db.transaction().execute(async (trx) => {
    await sql`select set_config('synchronous_commit', 'off', true)`.execute(trx);
    const result = await sql<{ n: number }>`
      with ${matchedSql(keys)}, audited as (
        insert into audit_events (company_id, operator_id, key_id, user_id, action, label, blind_index, result_count, request_id)
        select ${audit.companyId}::uuid, ${audit.operatorId}::uuid, ${audit.keyId}::uuid, ${audit.userId}::uuid, 'search',
               i.label, decode(i.digest, 'hex'), 0, ${audit.requestId}
        from json_to_recordset(${JSON.stringify(items)}::json) as i(n int, label text, digest text)
        where i.n not in (select n from matched)
      )
      select n from matched`.execute(trx);
    return positions(result.rows);
  });
}
