// Measures what authentication costs a request, and that a cached key costs no database round trip.
//   npm run build && node bench/auth.mjs            (embedded database in a temp dir)
//   DATABASE_URL=postgres://... REDIS_URL=redis://... node bench/auth.mjs
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../dist/app.js';
import { loadConfig } from '../dist/config.js';
import { loadCrypto } from '../dist/crypto/load-crypto.js';
import { newRootKeyText } from '../dist/crypto/root-key.js';
import { openDatabase } from '../dist/db/database.js';
import { migrateToLatest } from '../dist/db/migrate.js';
import { createKeyEvents } from '../dist/modules/keys/key-events.js';
import { createKeyAuthenticator } from '../dist/modules/keys/keys.authenticator.js';

const N = Number(process.env.BENCH_REQUESTS ?? 20_000);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'redflag-bench-'));
const config = {
  ...loadConfig({
    ...process.env,
    REDFLAG_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    REDFLAG_DATABASE_SCHEMA: process.env.DATABASE_URL ? 'bench_auth' : undefined,
    REDFLAG_MASTER_KEY: process.env.REDFLAG_MASTER_KEY ?? (process.env.DATABASE_URL ? newRootKeyText() : undefined),
  }),
  keyLastUsedFlushMs: 300_000,
};
const database = await openDatabase({
  databaseUrl: config.databaseUrl,
  databaseSchema: config.databaseSchema,
  dataDir,
  poolSize: 5,
});
await migrateToLatest(database.db);
const crypto = await loadCrypto({ db: database.db, config, engine: database.engine });
const app = await buildApp({ config, database, crypto });
const handler = async () => ({ success: true, message: 'OK', data: {} });
// Two identical handlers: one public, one behind the key check and the per-key limiter.
app.get('/bench/public', handler);
app.get('/bench/company', { config: { auth: 'company' } }, handler);
await app.ready();

const { apiKey } = await app.admin.companies.create({ businessName: 'Bench MFB', rateLimitPerMinute: 1_000_000 });
const headers = { 'x-api-key': apiKey };

let acquired = 0;
database.pool.on('acquire', () => {
  acquired++;
});

async function time(label, url, withKey) {
  for (let i = 0; i < 2_000; i++) await app.inject({ method: 'GET', url, headers: withKey ? headers : {} });
  const before = acquired;
  const start = process.hrtime.bigint();
  for (let i = 0; i < N; i++) {
    const res = await app.inject({ method: 'GET', url, headers: withKey ? headers : {} });
    if (res.statusCode !== 200) throw new Error(`${label}: ${res.statusCode} ${res.body}`);
  }
  const us = Number(process.hrtime.bigint() - start) / 1000 / N;
  console.log(
    `${label.padEnd(44)} ${us.toFixed(1).padStart(7)} µs/request  (${acquired - before} database queries in ${N} requests)`,
  );
  return us;
}

console.log(`engine ${database.engine}, redis ${config.redisUrl ? 'yes' : 'no'}, ${N} requests each (app.inject, no network)`);
const open = await time('public route', '/bench/public', false);
const authed = await time('same route behind x-api-key + rate limit', '/bench/company', true);
console.log(`${'auth + rate limit per request'.padEnd(44)} ${(authed - open).toFixed(1).padStart(7)} µs`);

// The key check alone: checksum, SHA-256, cache lookup.
const authenticator = createKeyAuthenticator({
  db: database.db,
  events: createKeyEvents(),
  defaultRateLimitPerMinute: 600,
  lastUsedFlushMs: 300_000,
  log: app.log,
});
await authenticator.authenticate(apiKey);
const before = acquired;
const start = process.hrtime.bigint();
for (let i = 0; i < 100_000; i++) await authenticator.authenticate(apiKey);
const perCall = Number(process.hrtime.bigint() - start) / 1000 / 100_000;
console.log(
  `${'authenticate() on a cached key'.padEnd(44)} ${perCall.toFixed(2).padStart(7)} µs/call  (${acquired - before} queries in 100000 calls)`,
);
const mistyped = `${apiKey.slice(0, 12)}${apiKey[12] === 'x' ? 'y' : 'x'}${apiKey.slice(13)}`;
const miss = process.hrtime.bigint();
for (let i = 0; i < 100_000; i++) await authenticator.authenticate(mistyped);
console.log(
  `${'authenticate() on a mistyped key'.padEnd(44)} ${(Number(process.hrtime.bigint() - miss) / 1000 / 100_000).toFixed(2).padStart(7)} µs/call  (${acquired - before} queries)`,
);

await authenticator.close();
await app.close();
await database.close();
fs.rmSync(dataDir, { recursive: true, force: true });
