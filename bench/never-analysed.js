// node bench/never-analysed.js [--identifiers N] [--searches N]
// What a search costs on tables never analysed, and after the database.upkeep job's run (decision
// 0105). Works on the bench's seeded database (seeding it first if need be): a copy of it on the
// embedded engine, the cached schema itself with DATABASE_URL (left analysed when it ends). It puts
// every table of the schema in the state of one never analysed — `reltuples = -1`, `relpages = 0`,
// no rows in `pg_statistic`, as PGlite kept every table before the job and as `pg_upgrade` leaves
// them before PostgreSQL 18 — which needs a superuser (the bench's server role, and PGlite's).
import path from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { openDatabase } from '../dist/db/database.js';
import { keepTablesUp } from '../dist/db/table-upkeep.js';
import { searchReports } from '../dist/modules/search/search.repository.js';
import { prepareDatabase } from './seeded-database.js';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const { values: flags } = parseArgs({ options: { identifiers: { type: 'string' }, searches: { type: 'string' } } });
const identifiers = Number(flags.identifiers ?? 1_000_000);
const searches = Number(flags.searches ?? 20);
if (!Number.isInteger(identifiers) || identifiers <= 0 || !Number.isInteger(searches) || searches <= 0)
  throw new Error('--identifiers and --searches take whole numbers');
const databaseUrl = process.env.DATABASE_URL || undefined;

const prepared = await prepareDatabase({
  identifiers,
  cacheDir: path.join(root, '.bench-cache'),
  reseed: false,
  databaseUrl,
});
const open = () =>
  openDatabase({
    databaseUrl,
    databaseSchema: prepared.env.REDFLAG_DATABASE_SCHEMA,
    dataDir: prepared.env.REDFLAG_DATA_DIR ?? path.join(root, '.bench-cache'),
    poolSize: 1,
  });

const median = (values) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)];
const rows = [];
let database = await open();
try {
  // Unique phone hits of the seeded population; one more, searched first, so that the prepared
  // statement is planned before the timed searches (as in a running service).
  const { rows: found } = await sql`
    select label, blind_index from report_identifiers where label = 'phone' order by id limit ${searches + 1}`.execute(
    database.db,
  );
  const keys = found.map((row) => ({ label: row.label, column: 'blind_index', indexes: [row.blind_index] }));
  const timeSearches = async (state) => {
    await searchReports(database.db, keys[0], 90);
    const ms = [];
    for (const key of keys.slice(1)) {
      const started = performance.now();
      await searchReports(database.db, key, 90);
      ms.push(performance.now() - started);
    }
    rows.push({ state, median: median(ms), min: Math.min(...ms), max: Math.max(...ms) });
  };

  await timeSearches('as seeded (analysed)');
  await sql`update pg_class set reltuples = -1, relpages = 0, relallvisible = 0
            where relnamespace = current_schema()::regnamespace and relkind = 'r'`.execute(database.db);
  await sql`delete from pg_statistic where starelid in (
              select oid from pg_class where relnamespace = current_schema()::regnamespace and relkind = 'r')`.execute(
    database.db,
  );
  // A new session: no plan of the analysed tables stays cached.
  await database.close();
  database = await open();
  await timeSearches('never analysed');

  const started = performance.now();
  const run = await keepTablesUp(database);
  const upkeepMs = performance.now() - started;
  await timeSearches('after database.upkeep');
  const again = performance.now();
  const next = await keepTablesUp(database);
  console.log(
    `database.upkeep: ${run.done.length} tables in ${upkeepMs.toFixed(0)} ms (${run.failed.length} failed); ` +
      `the next run ${next.done.length} tables in ${(performance.now() - again).toFixed(0)} ms`,
  );
} finally {
  await database.close();
  await prepared.cleanup();
}
console.log(`\n${prepared.engine} engine, ${identifiers.toLocaleString()} identifiers, ${searches} unique phone hits`);
console.log('| tables | median ms | min ms | max ms |\n|---|---:|---:|---:|');
for (const row of rows)
  console.log(`| ${row.state} | ${row.median.toFixed(1)} | ${row.min.toFixed(1)} | ${row.max.toFixed(1)} |`);
