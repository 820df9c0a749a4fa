import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    // PGlite start-up and real bundling are slow on a 2-core machine; nothing here is timed.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Vitest leaves one core free by default: on the 2-core CI machine that is one file at a time.
    maxWorkers: 2,
  },
});
