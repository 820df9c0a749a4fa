import postgres from 'postgres';
import { defineConfig } from 'vitest/config';

const DEFAULT_URL = 'postgres://postgres@127.0.0.1:5432/test';

/**
 * The database the tests run on: the Postgres server (DATABASE_URL, else the local default) when
 * it answers, since that is the production path; PGlite when it does not, or when
 * TEST_DATABASE=pglite asks for it (CI's embedded pass). The choice reaches the test files as
 * DATABASE_URL (set, or empty for PGlite), which the workers inherit.
 */
async function chooseDatabase(): Promise<string> {
  const wanted = process.env.TEST_DATABASE;
  if (wanted === 'pglite') return '';
  const url = process.env.DATABASE_URL || DEFAULT_URL;
  const probe = postgres(url, { max: 1, connect_timeout: 2, onnotice: () => {} });
  try {
    await probe`select 1`;
    return url;
  } catch (error) {
    if (wanted === 'postgres' || process.env.DATABASE_URL) {
      // Asked for by name: not reaching it is a failure, not a quiet fallback.
      throw new Error(`tests: the Postgres server at ${redacted(url)} did not answer: ${String(error)}`);
    }
    return '';
  } finally {
    await probe.end({ timeout: 1 }).catch(() => {});
  }
}

/**
 * What CI's embedded pass runs (`TEST_SCOPE=embedded`): what differs on PGlite — the embedded client
 * and migrations (db/), the CLIs and the local server on it, the seed, and every route once. The
 * whole suite runs on Postgres; a plain `npm test` runs all of it on whichever database it chose.
 */
const EMBEDDED_SCOPE = [
  'test/db/**/*.test.ts',
  'test/cli/**/*.test.ts',
  'test/local/**/*.test.ts',
  'test/seed/**/*.test.ts',
  'test/functions/every-route.test.ts',
];

const redacted = (url: string) => url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');

export default defineConfig(async () => {
  const url = await chooseDatabase();
  process.env.DATABASE_URL = url;
  console.log(
    url
      ? `tests: on the Postgres server at ${redacted(url)} (TEST_DATABASE=pglite for the embedded database)`
      : 'tests: on the embedded PGlite database (no Postgres server answered, or TEST_DATABASE=pglite)',
  );
  return {
    test: {
      include: process.env.TEST_SCOPE === 'embedded' ? EMBEDDED_SCOPE : ['test/**/*.test.ts'],
      globalSetup: ['test/helpers/global-setup.ts'],
      env: { DATABASE_URL: url },
      // PGlite start-up and real bundling are slow on a 2-core machine; nothing here is timed.
      testTimeout: 60_000,
      hookTimeout: 120_000,
      pool: 'forks',
      // Vitest leaves one core free by default: on the 2-core CI machine that is one file at a time.
      maxWorkers: 2,
    },
  };
});
