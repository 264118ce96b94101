import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';

export const serverUrl = process.env.TEST_DATABASE_URL;
export const engine = serverUrl ? 'server' : 'embedded';

export interface TestDatabase extends DatabaseHandle {
  /** The embedded data directory (a fresh temp dir even on the server engine). */
  dataDir: string;
  /** The server schema this file works in. */
  schema: string | undefined;
  /** Closes the database; its files are removed unless `keepFiles` (a test that inspects them removes them). */
  close(options?: { keepFiles?: boolean }): Promise<void>;
}

/** A fresh, migrated database for one test file: a copy of the template, or a new server schema. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'redflag-test-'));
  const schema = serverUrl ? serverSchemaName() : undefined;
  if (!serverUrl) fs.cpSync(inject('embeddedTemplateDir'), dataDir, { recursive: true });
  const handle = await openDatabase({ databaseUrl: serverUrl, databaseSchema: schema, dataDir, poolSize: 5 });
  await migrateToLatest(handle.db);
  return {
    ...handle,
    dataDir,
    schema,
    async close(options) {
      await handle.close();
      if (!options?.keepFiles) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A schema of its own for one test file on the server; the global teardown drops them all. */
export function serverSchemaName(): string {
  return `${inject('serverSchemaPrefix')}${randomBytes(6).toString('hex')}`;
}
