import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each test file starts its own embedded PostgreSQL (~250 MB); two at a time suit a 2-core machine.
    maxWorkers: 2,
  },
});
