import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A migrated embedded data directory that each test file copies instead of running initdb. */
    embeddedTemplateDir: string;
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
  return () => fs.rmSync(root, { recursive: true, force: true });
}
