import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // A page's answer to a click (a request, the database, Chromium drawing) can take over the
    // default second on a loaded 2-core machine; a check that passes returns as soon as it does.
    expect: { poll: { timeout: 10_000 } },
    // Each test file starts its own embedded PostgreSQL (~250 MB); two at a time suit a 2-core machine.
    maxWorkers: 2,
  },
});
