import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { type DatabaseConfig, type DatabaseHandle, openDatabase } from '#db/client.ts';
import { rowsOf } from '#db/queries/agents.ts';
import type { Logger } from '#functions/http/log.ts';
import { applyMigrations } from '#functions/migrate.ts';

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
      ['warn', 'database unavailable; retrying migrations'],
      ['warn', 'database unavailable; retrying migrations'],
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
