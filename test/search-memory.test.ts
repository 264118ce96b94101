import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measureSearchMemory, searchMemoryAdvice, searchMemoryAdviceOf } from '../src/modules/search/search-memory.js';
import { createTestDatabase, engine, type TestDatabase } from './helpers/test-database.js';

const MB = 1024 * 1024;

describe('the start-up advice on PostgreSQL buffer cache size', () => {
  it('says nothing while shared_buffers holds what a search reads', () => {
    expect(searchMemoryAdvice({ sharedBuffersBytes: 128 * MB, searchedBytes: 100 * MB })).toBeUndefined();
    expect(searchMemoryAdvice({ sharedBuffersBytes: 128 * MB, searchedBytes: 128 * MB })).toBeUndefined();
  });

  it('names both sizes and where to read more once it does not', () => {
    const memory = { sharedBuffersBytes: 128 * MB, searchedBytes: 9_420 * MB };
    expect(searchMemoryAdvice(memory)).toBe(
      "PostgreSQL's shared_buffers (128 MB) holds less than the tables and indexes searches read (9,420 MB): " +
        'pages outside it are read through the operating system, which makes searches dearer as the registry ' +
        'grows. Give shared_buffers room for them (README, "Server memory").',
    );
  });
});

describe(`measuring what a search reads (${engine} engine)`, () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database.close();
  });

  it('finds every relation it names in the migrated schema (a renamed index would drop out of the sum)', async () => {
    expect((await measureSearchMemory(database.db)).missing).toEqual([]);
  });

  it("reads the buffer cache's size and the relations' size on disk", async () => {
    const memory = await measureSearchMemory(database.db);
    // The embedded engine's cache is ours (src/db/embedded.ts); a server's is its operator's, at least 128 kB.
    if (engine === 'embedded') expect(memory.sharedBuffersBytes).toBe(32 * MB);
    else expect(memory.sharedBuffersBytes).toBeGreaterThanOrEqual(128 * 1024);
    // Even empty, each of the four B-tree indexes has its metapage (counted when it was built).
    expect(memory.searchedBytes).toBeGreaterThanOrEqual(4 * 8192);
    expect(memory.searchedBytes).toBeLessThan(memory.sharedBuffersBytes);
    expect(await searchMemoryAdviceOf(database.db)).toBeUndefined();
  });

  it('gives no advice, rather than an error, when the figures cannot be read: it must never stop a start', async () => {
    const closed = await createTestDatabase();
    await closed.close();
    await expect(measureSearchMemory(closed.db)).rejects.toThrow();
    expect(await searchMemoryAdviceOf(closed.db)).toBeUndefined();
  });
});
