// What PostgreSQL alone does with the search statement, for the same searches `npm run bench`
// sends: the seeded server schema's mix (60% unique hits, 20% common hits, 20% misses; accounts
// half as a bare NUBAN), driven by pgbench with no HTTP and no Node. The statement measured is the
// read-only one of a single key (the service's grouped statement also inserts its searches' audit
// rows, decision 0097); `--audit-each` adds a one-row audit insert after every search, which is
// what each search did before decision 0092.
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/search-statement.js [clients] [--miss] [--audit-each]
// Run `npm run bench` on the server first (it seeds and caches the schema), and nothing else beside.
// Prints searches a second and PostgreSQL's CPU per search (every postgres process, as the bench
// counts it), the probe lookup that picks each search's values measured alone and taken off.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { searchReports } from '../dist/modules/search/search.repository.js';
import { openCachedServerSchema } from './seeded-database.js';
import { postgresCpuBetween, postgresCpuMs } from './service.js';

const url = process.env.DATABASE_URL;
const identifiers = Number(process.env.BENCH_IDENTIFIERS ?? 1_000_000);
const clients = process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? '8';
const missesOnly = process.argv.includes('--miss');
/** Each search followed by its own audit insert, as before the service wrote them in groups. */
const auditEach = process.argv.includes('--audit-each');
const seconds = 10;
const PROBES = 20_000;
// The values' blind indexes, as the service computes them, into a probe table pgbench reads.
const { schema, database, sealed, picker } = await openCachedServerSchema({ url, identifiers, seed: 7, poolSize: 2 });
const probes = [];
for (let n = 1; n <= PROBES; n++) {
  const { identifier, value } = missesOnly ? picker.miss() : picker.mixed();
  const found = sealed.searchKey(identifier, value);
  if (!found.ok) throw new Error(`${identifier} ${value}: ${found.message}`);
  probes.push({ n, label: identifier, bi: found.key.indexes[0], nuban: found.key.column === 'nuban_index' ? 1 : 0 });
}
await database.close();

const pool = new pg.Pool({ connectionString: url, options: `-c search_path=${schema}`, max: 1 });
await pool.query('drop table if exists zz_statement_probes');
await pool.query('create unlogged table zz_statement_probes (n int primary key, label text, bi bytea, nuban int)');
for (let at = 0; at < probes.length; at += 1000) {
  const part = probes.slice(at, at + 1000);
  await pool.query('insert into zz_statement_probes select * from unnest($1::int[], $2::text[], $3::bytea[], $4::int[])', [
    part.map((p) => p.n),
    part.map((p) => p.label),
    part.map((p) => p.bi),
    part.map((p) => p.nuban),
  ]);
}

// The statement's text for both shapes, as the service sends it, its parameters turned into pgbench variables.
const key = (await pool.query('select id, company_id from api_keys where company_id is not null limit 1')).rows[0];
const requestId = 'bench-search-statement';
const auditInsert =
  'insert into audit_events (company_id, key_id, action, label, blind_index, result_count, request_id) ' +
  `select '${key.company_id}', '${key.id}', 'search', :label, :bi, 0, '${requestId}' ` +
  "from (select set_config('synchronous_commit', 'off', true)) as async_commit;\n";
let captured;
const db = new Kysely({ dialect: new PostgresDialect({ pool }), log: (event) => (captured = event.query) });
async function statementFor(column, label) {
  await searchReports(db, { label, column, indexes: [Buffer.alloc(32)] }, 30);
  const literal = (p) => {
    if (Buffer.isBuffer(p)) return ':bi';
    if (p === label) return ':label';
    if (p === null) return 'null';
    if (typeof p === 'number') return String(p);
    return `'${String(p).replaceAll("'", "''")}'`;
  };
  const values = captured.parameters.map(literal);
  return (
    captured.sql
      .replace(/--[^\n]*/g, '')
      .replace(/\s+/g, ' ')
      .replace(/\$(\d+)/g, (_, n) => values[Number(n) - 1])
      // pgbench reads ":name" as a variable, also inside string literals.
      .replaceAll(':MI:SS', "' || chr(58) || 'MI' || chr(58) || 'SS")
  );
}
const blind = await statementFor('blind_index', 'phone');
const nuban = await statementFor('nuban_index', 'account');

const pick = `\\set n random(1, ${PROBES})\nselect label, bi, nuban from zz_statement_probes where n = :n \\gset\n`;
/**
 * pgbench's backends exit when it ends, before a reading after it could count them: PostgreSQL's
 * CPU is read every 100 ms while it runs (the last tenth of a second of each backend is missed, ~1%).
 */
async function run(name, script) {
  const file = path.join(os.tmpdir(), `redflag-${name}.sql`);
  fs.writeFileSync(file, script);
  const before = postgresCpuMs();
  const seen = new Map(before);
  const sampler = setInterval(() => {
    for (const [pid, ms] of postgresCpuMs()) seen.set(pid, ms);
  }, 100);
  const child = spawn('pgbench', ['-n', '-M', 'prepared', '-c', clients, '-j', '2', '-T', String(seconds), '-f', file, url], {
    env: { ...process.env, PGOPTIONS: `-c search_path=${schema}` },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  const code = await new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  clearInterval(sampler);
  if (code !== 0) throw new Error(`pgbench exited ${code} (${stderr}); the script is ${file}`);
  const tps = Number(/tps = ([\d.]+)/.exec(stdout)?.[1]);
  const transactions = Number(/number of transactions actually processed: (\d+)/.exec(stdout)?.[1]);
  return { tps, cpuMs: postgresCpuBetween(before, seen) / transactions };
}

const lookup = await run('probe-lookup', pick);
const searches = await run(
  'search-statement',
  `${pick}\\if :nuban\n${nuban};\n\\else\n${blind};\n\\endif\n${auditEach ? auditInsert : ''}`,
);
const net = searches.cpuMs - lookup.cpuMs;
console.log(
  `pgbench, ${clients} clients, ${seconds} s each, ${missesOnly ? 'misses only' : "the bench's search mix"}${auditEach ? ', an audit insert after each' : ''} (${PROBES.toLocaleString()} probes), ${schema}\n` +
    `  probe lookup alone:        ${Math.round(lookup.tps).toLocaleString()}/s, PostgreSQL CPU ${lookup.cpuMs.toFixed(3)} ms each\n` +
    `  probe lookup + search:     ${Math.round(searches.tps).toLocaleString()}/s, PostgreSQL CPU ${searches.cpuMs.toFixed(3)} ms each\n` +
    `  the search statement alone: PostgreSQL CPU ${net.toFixed(3)} ms per search`,
);
await pool.query('delete from audit_events where request_id = $1', [requestId]);
await pool.query('drop table zz_statement_probes');
await db.destroy();
