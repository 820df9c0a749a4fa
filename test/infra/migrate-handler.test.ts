import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseConfig, type DatabaseHandle, openDatabase } from '#db/client.ts';
import { rowsOf } from '#db/queries/rows.ts';
import type { Logger } from '#functions/http/log.ts';
import { applyMigrations } from '#functions/migrate.ts';
import { freshDatabase, usingPostgres } from '#test/helpers/database.ts';
import { migrationsFolder } from '#test/helpers/migrations.ts';

const memory: DatabaseConfig = { kind: 'pglite' };
const silent: Logger = () => {};
/** Nothing listens on port 1: connecting is refused at once, as by a cluster still resuming. */
const refused: DatabaseConfig = { kind: 'postgres', url: 'postgres://nobody@127.0.0.1:1/none' };

/** The first `failures` opens reach a refused port; later ones a real (in-memory) database. */
function flakyOpen(failures: number, opened: DatabaseHandle[]) {
  let calls = 0;
  return async (config: DatabaseConfig): Promise<DatabaseHandle> => {
    const handle = await openDatabase(++calls > failures ? config : refused);
    opened.push(handle);
    return handle;
  };
}

describe('the migration handler', () => {
  it('applies the committed migrations, and a second run changes nothing', async () => {
    const opened: DatabaseHandle[] = [];
    const open = async (config: DatabaseConfig) => {
      const handle = opened[0] ?? (await openDatabase(config));
      opened.push(handle);
      return { ...handle, close: async () => {} };
    };
    expect(await applyMigrations(memory, { remainingMs: () => 60_000, logger: silent, open })).toEqual({
      attempts: 1,
    });
    expect(await applyMigrations(memory, { remainingMs: () => 60_000, logger: silent, open })).toEqual({
      attempts: 1,
    });
    const [handle] = opened as [DatabaseHandle];
    const tables = rowsOf<{ n: number }>(
      await handle.db.execute(
        sql`select count(*)::int as n from information_schema.tables where table_schema = 'public'`,
      ),
    );
    expect(tables[0]?.n).toBeGreaterThan(5);
    await handle.close();
  });

  it('retries while the database is unavailable and time remains', async () => {
    const opened: DatabaseHandle[] = [];
    const warnings: unknown[] = [];
    const result = await applyMigrations(memory, {
      remainingMs: () => 60_000,
      retryDelayMs: 1,
      logger: (level, message) => warnings.push([level, message]),
      open: flakyOpen(2, opened),
    });
    expect(result).toEqual({ attempts: 3 });
    expect(warnings).toEqual([
      ['warn', 'migrations failed; retrying'],
      ['warn', 'migrations failed; retrying'],
      ['info', 'migrations applied'],
    ]);
  });

  it('gives up, failing the deployment, when the invocation is about to time out', async () => {
    const opened: DatabaseHandle[] = [];
    await expect(
      applyMigrations(memory, {
        remainingMs: () => 10_000,
        retryDelayMs: 1,
        logger: silent,
        open: flakyOpen(1, opened),
      }),
    ).rejects.toMatchObject({ cause: { code: 'ECONNREFUSED' } });
    expect(opened).toHaveLength(1);
  });

  it('does not retry an error in the migration itself', async () => {
    const opened: DatabaseHandle[] = [];
    await expect(
      applyMigrations(memory, {
        remainingMs: () => 60_000,
        logger: silent,
        open: flakyOpen(0, opened),
        migrationsFolder: '/nonexistent',
      }),
    ).rejects.toThrow();
    expect(opened).toHaveLength(1);
  });
});

describe.runIf(usingPostgres())(
  'migrations on a real Postgres server (skipped on PGlite: the handler connects to a server)',
  () => {
    let database: DatabaseHandle & { url?: string };
    let config: DatabaseConfig;
    beforeAll(async () => {
      database = await freshDatabase();
      config = { kind: 'postgres', url: database.url ?? '' };
    });
    afterAll(() => database.close());

    it("run with the migration session's long statement timeout and short lock timeout, not the API's 6 s", async () => {
      // The migration checks its own session: a mismatch raises, and fails the run.
      const folder = migrationsFolder([
        `do $$ begin
         if current_setting('statement_timeout') <> '10min' or current_setting('lock_timeout') <> '5s' then
           raise exception 'session: statement_timeout %, lock_timeout %',
             current_setting('statement_timeout'), current_setting('lock_timeout');
         end if;
       end $$;`,
      ]);
      expect(
        await applyMigrations(config, {
          remainingMs: () => 60_000,
          logger: silent,
          migrationsFolder: folder,
        }),
      ).toEqual({ attempts: 1 });
    });

    it('fail at once on a statement timeout (57014), without retrying it as transient', async () => {
      const opened: DatabaseHandle[] = [];
      const warnings: unknown[] = [];
      await expect(
        applyMigrations(config, {
          remainingMs: () => 600_000,
          retryDelayMs: 1,
          logger: (level, message) => warnings.push([level, message]),
          open: flakyOpen(0, opened),
          migrationsFolder: migrationsFolder(['select pg_sleep(2)']),
          session: { statementTimeoutMs: 200, lockTimeoutMs: 1_000 },
        }),
      ).rejects.toMatchObject({ cause: { code: '57014' } });
      expect(opened).toHaveLength(1);
      expect(warnings).toEqual([]);
    });

    it('retry a lock timeout a few times, then fail the deploy; once the lock is free they apply', async () => {
      const holder = postgres(database.url ?? '', { max: 1, onnotice: () => {} });
      const folder = migrationsFolder(['alter table workspaces add column lock_probe int']);
      const options = {
        remainingMs: () => 600_000,
        retryDelayMs: 1,
        logger: silent,
        migrationsFolder: folder,
        session: { statementTimeoutMs: 60_000, lockTimeoutMs: 200 },
        lockAttempts: 3,
      };
      const opened: DatabaseHandle[] = [];
      let release: () => void = () => {};
      const held = holder.begin(async (tx) => {
        await tx`lock table workspaces in access exclusive mode`;
        await new Promise<void>((resolve) => {
          release = resolve;
        });
      });
      try {
        await new Promise((resolve) => setTimeout(resolve, 200));
        await expect(
          applyMigrations(config, { ...options, open: flakyOpen(0, opened) }),
        ).rejects.toMatchObject({
          cause: { code: '55P03' },
        });
        expect(opened).toHaveLength(3);
      } finally {
        release();
        await held;
        await holder.end();
      }
      expect(await applyMigrations(config, options)).toEqual({ attempts: 1 });
    });
  },
);
