import { type Kysely, sql } from 'kysely';

/**
 * The card triggers of 0018 never let PostgreSQL compile their statements with JIT (decision 0103).
 * A rebuild touches the few reports one statement changed, but on a table without statistics
 * (after a bulk load, after `pg_upgrade`, or with autovacuum off) the planner takes
 * `report_id = $1` to match 0.5% of `report_identifiers`. Past a few million identifiers that costs
 * the card's plan above `jit_above_cost`, and every card built paid for an LLVM compilation: the
 * bench's 10,000,000-identifier seed spent 83.5% of its backend's CPU in LLVM. Set on the trigger
 * functions, the setting holds for every writer (the service, psql, a restore that fires triggers)
 * and for `report_card` as they call it, without a connection option a pooler might refuse.
 */
const REBUILDS = ['report_cards_rebuild()', 'public_report_cards_rebuild()'];

export async function up(db: Kysely<any>): Promise<void> {
  for (const fn of REBUILDS) await sql`alter function ${sql.raw(fn)} set jit = off`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const fn of REBUILDS) await sql`alter function ${sql.raw(fn)} reset jit`.execute(db);
}
