import postgres from 'postgres';
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

/**
 * The database the tests run on: the embedded PGlite, unless TEST_DATABASE_URL names a Postgres
 * server (CI names one: the production path, postgres.js, the fault and role tests). Nothing else
 * is taken: not DATABASE_URL, not whatever answers on 127.0.0.1:5432, so a development server is
 * left alone unless named. A server named that does not answer is a failure, not a quiet fallback.
 * TEST_DATABASE=pglite forces PGlite even then. The choice reaches the test files as DATABASE_URL
 * (the server's URL, or empty for PGlite), which the workers inherit; global-setup.ts removes what
 * the run creates on the server.
 */
async function chooseDatabase(): Promise<string> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url || process.env.TEST_DATABASE === 'pglite') return '';
  const probe = postgres(url, { max: 1, connect_timeout: 2, onnotice: () => {} });
  try {
    await probe`select 1`;
    return url;
  } catch (error) {
    throw new Error(
      `tests: the Postgres server at ${redacted(url)} (TEST_DATABASE_URL) did not answer: ${String(error)}`,
    );
  } finally {
    await probe.end({ timeout: 1 }).catch(() => {});
  }
}

/**
 * What CI's embedded pass runs (`TEST_SCOPE=embedded`): what differs on PGlite — the embedded client
 * and migrations (db/), the seed, the CLIs from an empty embedded database, and every route once
 * through the local gateway. The whole suite runs on Postgres (the other CLI and
 * local-gateway tests use the database as any store); a plain `npm test` runs all of it on
 * whichever database it chose.
 */
const EMBEDDED_SCOPE = [
  'test/db/**/*.test.ts',
  'test/seed/**/*.test.ts',
  'test/cli/cli.test.ts',
  'test/functions/every-route.test.ts',
];
/**
 * In the folders above, but the same on either database: they run once, in the Postgres pass (as
 * does test/cli/beside-npm-start.test.ts, always on npm start's embedded database).
 */
const EMBEDDED_SCOPE_EXCEPT = [
  'test/db/ids.test.ts',
  // The plan a deploy makes before migrating (snapshot or not) is made on the deployed database.
  'test/db/migration-plan.test.ts',
];

const INFRA = 'test/infra/**/*.test.ts';
/**
 * Files that set process.env, spy on globals, or run a deployed entry point (whose container state,
 * functions/deps.ts, lives as long as its module): each gets modules of its own.
 */
export const ISOLATED = [
  'test/functions/database-credentials.test.ts',
  'test/functions/lambda-logging.test.ts',
  'test/functions/preview-database.test.ts',
  'test/functions/relay.test.ts',
  'test/functions/usage-plan-keys.test.ts',
  'test/functions/usage-plan-keys-remote.test.ts',
  'test/functions/webhook-secrets-key.test.ts',
  'test/hardening/security.test.ts',
  'test/local/aws-endpoint.test.ts',
];
// The others share their worker's modules (isolate off): imported once a worker, not once a file
// (docs/decisions.md). test/architecture/isolation.test.ts keeps ISOLATED complete.
const PROJECTS: TestProjectInlineConfiguration[] = [
  // The infrastructure tests synthesise each stage once a worker (test/infra/synth.ts keeps it):
  // first, on two workers, so each stage is synthesised at most twice, while the other tests, which
  // wait on servers, deadlines and child processes, then run on four.
  {
    extends: true,
    test: { name: 'infra', include: [INFRA], isolate: false, maxWorkers: 2, sequence: { groupOrder: 0 } },
  },
  { extends: true, test: { name: 'isolated', include: ISOLATED, sequence: { groupOrder: 1 } } },
  {
    extends: true,
    test: {
      name: 'rest',
      include: ['test/**/*.test.ts'],
      exclude: [INFRA, ...ISOLATED],
      isolate: false,
      sequence: { groupOrder: 1 },
    },
  },
];

const redacted = (url: string) => url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');

export default defineConfig(async () => {
  const url = await chooseDatabase();
  process.env.DATABASE_URL = url;
  console.log(
    url
      ? `tests: on the Postgres server at ${redacted(url)} (TEST_DATABASE_URL)`
      : 'tests: on the embedded PGlite database (TEST_DATABASE_URL names a Postgres server instead)',
  );
  const embedded = process.env.TEST_SCOPE === 'embedded';
  return {
    test: {
      // A project extending this config would add its include to a root one: so none is set here.
      ...(embedded ? { include: EMBEDDED_SCOPE, exclude: EMBEDDED_SCOPE_EXCEPT } : { projects: PROJECTS }),
      globalSetup: ['test/helpers/global-setup.ts'],
      env: { DATABASE_URL: url },
      // PGlite start-up and real bundling are slow on a 2-core machine; nothing here is timed.
      testTimeout: 60_000,
      hookTimeout: 120_000,
      pool: 'forks',
      // Vitest leaves one core free by default: on the 2-core CI machine that is one file at a time.
      // Four: files wait on deadlines, child processes and servers (the infra project: two).
      maxWorkers: 4,
    },
  };
});
