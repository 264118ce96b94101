// Writes the service's OpenAPI document to client/openapi.json and regenerates the typed client's
// types from it (client/src/schema.d.ts, with openapi-typescript). Run after changing a route:
// `npm run client:generate`; test/client.openapi.test.ts fails while either file is stale.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../dist/app.js';
import { loadConfig } from '../dist/config.js';
import { loadCrypto } from '../dist/crypto/load-crypto.js';
import { openDatabase } from '../dist/db/database.js';
import { migrateToLatest } from '../dist/db/migrate.js';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'redflag-openapi-'));
const config = loadConfig({ REDFLAG_DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
const database = await openDatabase({ dataDir, poolSize: 1 });
try {
  await migrateToLatest(database.db);
  const crypto = await loadCrypto({ db: database.db, config, engine: database.engine });
  const app = await buildApp({ config, database, crypto });
  await app.ready();
  const text = `${JSON.stringify(app.swagger(), null, 2)}\n`;
  await app.close();
  fs.writeFileSync(path.join(root, 'client/openapi.json'), text);
  const schemaFile = path.join(root, 'client/src/schema.d.ts');
  // openapi-typescript 7 wants TypeScript 5 (this project builds with 7), so it runs from npx's own cache.
  execFileSync('npx', ['--yes', 'openapi-typescript@7.13.0', 'client/openapi.json', '-o', schemaFile], {
    cwd: root,
    stdio: 'inherit',
  });
  const digest = createHash('sha256').update(text).digest('hex');
  const generated = fs.readFileSync(schemaFile, 'utf8');
  fs.writeFileSync(
    schemaFile,
    `// Generated from client/openapi.json (sha256 ${digest}) by npm run client:generate; do not edit.\n${generated}`,
  );
} finally {
  await database.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
