import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A migrated embedded data directory that each test file copies instead of running initdb. */
    embeddedTemplateDir: string;
    /** On the server engine, the prefix of every schema this run creates (all dropped at the end). */
    serverSchemaPrefix: string;
  }
}

/**
 * Creating an embedded database (initdb) takes seconds; copying a migrated one takes milliseconds.
 * On the server engine each file gets its own schema instead, so nothing is prepared here.
 */
export default async function setup(project: TestProject) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'redflag-template-'));
  if (!process.env.TEST_DATABASE_URL) {
    const database = await openDatabase({ databaseUrl: undefined, dataDir: root, poolSize: 1 });
    await migrateToLatest(database.db);
    await database.close();
  }
  project.provide('embeddedTemplateDir', root);
  // Schemas are dropped once, after every file has finished: a schema dropped while another file
  // migrates can make Kysely's catalogue introspection fail ("schema ... does not exist").
  const prefix = `test_${randomBytes(4).toString('hex')}_`;
  project.provide('serverSchemaPrefix', prefix);
  return async () => {
    fs.rmSync(root, { recursive: true, force: true });
    const url = process.env.TEST_DATABASE_URL;
    if (url) await dropSchemas(url, prefix);
  };
}

async function dropSchemas(url: string, prefix: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(
      'select nspname as name from pg_namespace where starts_with(nspname, $1)',
      [prefix],
    );
    for (const { name } of rows) await client.query(`drop schema if exists "${name}" cascade`);
  } finally {
    await client.end();
  }
}
