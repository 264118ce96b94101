// The seeded database a benchmark run starts from, built once per parameter set and cached:
// embedded — a data directory (pgdata + master.key) under .bench-cache/, copied for each run;
// server — a schema named after the parameters, its root key and API keys in .bench-cache/.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import cliProgress from 'cli-progress';
import pg from 'pg';
import { checkedBanks, createSearchPicker, POPULATION_VERSION, populationShape } from '../dist/bench/population.js';
import { seedPopulation } from '../dist/bench/seed.js';
import { loadCrypto } from '../dist/crypto/load-crypto.js';
import { newRootKeyText } from '../dist/crypto/root-key.js';
import { openDatabase } from '../dist/db/database.js';
import { migrateToLatest } from '../dist/db/migrate.js';
import { migrations } from '../dist/db/migrations/index.js';
import { shippedBankDirectory } from '../dist/identifiers/normalize.js';
import { createSealedIdentifiers } from '../dist/identifiers/sealed-identifiers.js';

/** Reports the bench creates are newer than every seeded one; see seed.ts. */
const SEEDED_BEFORE = '2026-11-01T00:00:01Z';

// Keyed by what the population is; a cached database is brought up to newer migrations in place.
function cacheKey(identifiers) {
  return `n${identifiers}_p${POPULATION_VERSION}`;
}

// Each migration by a hash of its built file: an added migration is applied to the cached database,
// an edited one (allowed until a migration ships) means the cache no longer matches and is rebuilt.
const migrationsDir = new URL('../dist/db/migrations/', import.meta.url);
const migrationNames = () =>
  Object.fromEntries(
    Object.keys(migrations).map((name) => [
      name,
      createHash('sha256')
        .update(fs.readFileSync(new URL(`${name}.js`, migrationsDir)))
        .digest('hex')
        .slice(0, 12),
    ]),
  );
const isCurrent = (meta) => JSON.stringify(meta.migrations) === JSON.stringify(migrationNames());
const isStale = (meta) => {
  const now = migrationNames();
  return typeof meta.migrations !== 'object' || Object.entries(meta.migrations).some(([name, hash]) => now[name] !== hash);
};

async function migrateCached({ databaseUrl, schema, dataDir }) {
  const database = await openDatabase({ databaseUrl, databaseSchema: schema, dataDir, poolSize: 1 });
  try {
    await migrateToLatest(database.db);
  } finally {
    await database.close();
  }
}

async function seed({ databaseUrl, schema, dataDir, masterKey, identifiers }) {
  const database = await openDatabase({ databaseUrl, databaseSchema: schema, dataDir, poolSize: 4 });
  try {
    await migrateToLatest(database.db);
    const crypto = await loadCrypto({ db: database.db, config: { masterKey, dataDir }, engine: database.engine });
    // A redrawn bar on a terminal; a line per tenth when the output is piped (CI logs, `| tee`).
    const bar = process.stderr.isTTY
      ? new cliProgress.SingleBar(
          { format: '  seeding [{bar}] {percentage}% | {value}/{total} reports | {eta_formatted} left', stream: process.stderr },
          cliProgress.Presets.shades_classic,
        )
      : undefined;
    const started = performance.now();
    let lastTenth = 0;
    bar?.start(1, 0);
    const result = await seedPopulation({
      db: database.db,
      crypto,
      identifiers,
      onProgress: (done, total) => {
        bar?.setTotal(total);
        bar?.update(done);
        const tenth = Math.floor((done / total) * 10);
        if (!bar && tenth > lastTenth) {
          lastTenth = tenth;
          console.error(`  seeding: ${done.toLocaleString()} of ${total.toLocaleString()} reports`);
        }
      },
    });
    bar?.stop();
    const seconds = (performance.now() - started) / 1000;
    console.error(
      `  seeded ${result.reports.toLocaleString()} reports / ${result.identifiers.toLocaleString()} identifiers in ${seconds.toFixed(0)} s ` +
        `(${Math.round(result.identifiers / seconds).toLocaleString()} identifiers/s)`,
    );
    return { companies: result.companies, shape: result.shape, seedSeconds: seconds, migrations: migrationNames() };
  } finally {
    await database.close();
  }
}

function syncTree(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) syncTree(full);
    else if (entry.isFile()) {
      const fd = fs.openSync(full, 'r');
      try {
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
    }
  }
}

function dirSize(dir) {
  let total = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += dirSize(full);
    else if (entry.isFile()) total += fs.statSync(full).size;
  }
  return total;
}

async function prepareEmbedded({ identifiers, cacheDir, reseed }) {
  const dir = path.join(cacheDir, `embedded_${cacheKey(identifiers)}`);
  const metaFile = path.join(dir, 'meta.json');
  const cached = fs.existsSync(metaFile) ? JSON.parse(fs.readFileSync(metaFile, 'utf8')) : undefined;
  if (reseed || !cached || isStale(cached)) {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(path.join(dir, 'data'), { recursive: true });
    console.error(`Seeding the embedded database in ${path.relative(process.cwd(), dir)} (cached for later runs)`);
    const seeded = await seed({ dataDir: path.join(dir, 'data'), identifiers });
    fs.writeFileSync(metaFile, JSON.stringify(seeded, null, 2));
  } else {
    console.error(`Using the cached embedded database ${path.relative(process.cwd(), dir)}`);
  }
  let meta = JSON.parse(fs.readFileSync(metaFile, 'utf8'));
  if (!isCurrent(meta)) {
    await migrateCached({ dataDir: path.join(dir, 'data') });
    meta = { ...meta, migrations: migrationNames() };
    fs.writeFileSync(metaFile, JSON.stringify(meta, null, 2));
  }
  // Each run works on a copy, so every run starts from the same database.
  const runDir = path.join(cacheDir, `run-${process.pid}`);
  fs.rmSync(runDir, { recursive: true, force: true });
  const copyStarted = performance.now();
  fs.cpSync(path.join(dir, 'data'), runDir, { recursive: true });
  // A fresh copy is all dirty pages in the OS cache: the service's first fsync (a commit, a
  // checkpoint) would pay for writing the whole database out and stall for seconds. A database that
  // has been running is on disk, so the copy is written out before the service starts.
  syncTree(runDir);
  console.error(`  copied for this run (and synced to disk) in ${((performance.now() - copyStarted) / 1000).toFixed(1)} s`);
  return {
    engine: 'embedded',
    meta,
    env: { REDFLAG_DATA_DIR: runDir },
    sizeBytes: dirSize(path.join(dir, 'data', 'pgdata')),
    sizeNote: 'data directory',
    async cleanup() {
      fs.rmSync(runDir, { recursive: true, force: true });
    },
  };
}

/** The seeded schema for N identifiers on one server, and the file beside it with its root key and API keys. */
function serverCache(cacheDir, databaseUrl, identifiers) {
  const schema = `bench_${cacheKey(identifiers)}`;
  const server = createHash('sha256').update(databaseUrl).digest('hex').slice(0, 8);
  return { schema, metaFile: path.join(cacheDir, `server_${server}_${schema}.json`) };
}

async function prepareServer({ identifiers, cacheDir, reseed, databaseUrl }) {
  const { schema, metaFile } = serverCache(cacheDir, databaseUrl, identifiers);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const marker = await client.query('select obj_description(oid, $2) as note from pg_namespace where nspname = $1', [
      schema,
      'pg_namespace',
    ]);
    const complete = marker.rows[0]?.note === 'redflag bench seed complete';
    const cached = fs.existsSync(metaFile) ? JSON.parse(fs.readFileSync(metaFile, 'utf8')) : undefined;
    if (reseed || !complete || !cached || isStale(cached)) {
      await client.query(`drop schema if exists "${schema}" cascade`);
      console.error(`Seeding schema ${schema} on the server (cached for later runs)`);
      const masterKey = newRootKeyText();
      const seeded = await seed({ databaseUrl, schema, dataDir: cacheDir, masterKey, identifiers });
      fs.mkdirSync(cacheDir, { recursive: true });
      fs.writeFileSync(metaFile, JSON.stringify({ ...seeded, masterKey }, null, 2), { mode: 0o600 });
      await client.query(`comment on schema "${schema}" is 'redflag bench seed complete'`);
    } else {
      console.error(`Using the cached schema ${schema}`);
    }
    let meta = JSON.parse(fs.readFileSync(metaFile, 'utf8'));
    if (!isCurrent(meta)) {
      await migrateCached({ databaseUrl, schema, dataDir: cacheDir });
      meta = { ...meta, migrations: migrationNames() };
      fs.writeFileSync(metaFile, JSON.stringify(meta, null, 2), { mode: 0o600 });
    }
    const { rows } = await client.query(
      // Searches of a registry larger than PostgreSQL's buffer cache read pages through the operating system (README, "Server memory").
      `select coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint as size, current_setting('shared_buffers') as shared_buffers
         from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = $1 and c.relkind in ('r', 'm')`,
      [schema],
    );
    const audit = await client.query(`select coalesce(max(id), 0) as id from "${schema}".audit_events`);
    return {
      engine: 'server',
      meta,
      env: { DATABASE_URL: databaseUrl, REDFLAG_DATABASE_SCHEMA: schema, REDFLAG_MASTER_KEY: meta.masterKey },
      sizeBytes: Number(rows[0].size),
      sizeNote: `schema ${schema}`,
      cacheNote: `PostgreSQL shared_buffers ${rows[0].shared_buffers}`,
      // The run's reports and audit rows are removed, so the next run starts from the seeded state.
      async cleanup() {
        const c = new pg.Client({ connectionString: databaseUrl });
        await c.connect();
        try {
          await c.query(`delete from "${schema}".reports where created_at > $1`, [SEEDED_BEFORE]);
          await c.query(`delete from "${schema}".audit_events where id > $1`, [audit.rows[0].id]);
          await c.query(`delete from "${schema}".idempotency_keys`);
          await c.query(
            `vacuum analyze "${schema}".reports, "${schema}".report_identifiers, "${schema}".report_cards, "${schema}".audit_events`,
          );
        } finally {
          await c.end();
        }
      },
    };
  } finally {
    await client.end();
  }
}

/** The seeded database for these parameters (seeding it first if the cache has none), ready for one run. */
export function prepareDatabase(options) {
  fs.mkdirSync(options.cacheDir, { recursive: true });
  return options.databaseUrl ? prepareServer(options) : prepareEmbedded(options);
}

/**
 * The server schema `npm run bench` seeded and cached, opened with its root key for scripts that
 * look at the search statement on their own (search-statement.js, grouped-statement.js): the
 * schema's name, the database, the service's own normalise-and-index code, and the bench's search picker.
 */
export async function openCachedServerSchema({ url, identifiers, seed, poolSize }) {
  if (!url) throw new Error('Set DATABASE_URL to the server that holds the seeded schema (run the bench on it first).');
  const cacheDir = path.resolve(import.meta.dirname, '..', '.bench-cache');
  // The same names prepareServer gave them: this server's cache, not another server's of the same N.
  const { schema, metaFile } = serverCache(cacheDir, url, identifiers);
  if (!fs.existsSync(metaFile)) throw new Error(`No cached seed for ${schema} on this server: run npm run bench on it first.`);
  const meta = JSON.parse(fs.readFileSync(metaFile, 'utf8'));
  const database = await openDatabase({ databaseUrl: url, databaseSchema: schema, dataDir: cacheDir, poolSize });
  const crypto = await loadCrypto({
    db: database.db,
    config: { masterKey: meta.masterKey, dataDir: cacheDir },
    engine: 'server',
  });
  const directory = shippedBankDirectory();
  const sealed = createSealedIdentifiers({ crypto, banks: directory });
  const picker = createSearchPicker(populationShape(identifiers), checkedBanks(directory), seed);
  return { schema, database, sealed, picker };
}
