// What PostgreSQL alone does with the search statement: writes it as a pgbench script (a random
// miss per transaction, the audit row included) for the seeded server schema, then runs pgbench.
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/search-statement.js [clients]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { searchReports } from '../dist/modules/search/search.repository.js';

const url = process.env.DATABASE_URL;
const schema = process.env.BENCH_SCHEMA ?? 'bench_n1000000_p3';
const clients = process.argv[2] ?? '8';
if (!url) throw new Error('Set DATABASE_URL to the server that holds the seeded schema (run the bench on it first).');

const pool = new pg.Pool({ connectionString: url, options: `-c search_path=${schema}`, max: 1 });
let text = '';
const db = new Kysely({ dialect: new PostgresDialect({ pool }), log: (event) => (text = event.query.sql) });
const key = (await pool.query('select id, company_id from api_keys where company_id is not null limit 1')).rows[0];
const requestId = 'bench-search-statement';
const audit = { companyId: key.company_id, operatorId: null, keyId: key.id, userId: null, requestId };
await searchReports(db, { label: 'phone', column: 'blind_index', indexes: [Buffer.alloc(32)] }, audit, 30);

const values = ["'phone'", ':bi', '100', "'phone'", ':bi', '100', `'${key.company_id}'`, 'null', `'${key.id}'`, 'null'];
values.push("'phone'", ':bi', `'${requestId}'`);
const statement = text
  .replace(/--[^\n]*/g, '')
  .replace(/\s+/g, ' ')
  .replace(/\$(\d+)/g, (_, n) => values[Number(n) - 1])
  // pgbench reads ":name" as a variable, also inside string literals.
  .replaceAll(':MI:SS', "' || chr(58) || 'MI' || chr(58) || 'SS");
const file = path.join(os.tmpdir(), 'redflag-search-statement.sql');
fs.writeFileSync(file, `\\set n random(1, 1000000000)\nselect sha256(:n::text::bytea) as bi \\gset\n${statement};\n`);

const run = spawnSync('pgbench', ['-n', '-M', 'prepared', '-c', clients, '-j', '2', '-T', '8', '-f', file, url], {
  env: { ...process.env, PGOPTIONS: `-c search_path=${schema}` },
  encoding: 'utf8',
});
console.log(run.error ? `pgbench did not run (${run.error.message}); the script is ${file}` : run.stdout + run.stderr);
await pool.query('delete from audit_events where request_id = $1', [requestId]);
await db.destroy();
