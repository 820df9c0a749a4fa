import { existsSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import sql from 'sql-template-tag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '#db/client.ts';
import { PostgresDriver } from '#db/postgres-driver.ts';
import { FaultProxy } from '#test/hardening/support/proxy.ts';
import { freshDatabase, usingPostgres } from '#test/helpers/database.ts';

// What db/postgres-driver.ts relies on in postgres.js beyond its documented surface, each checked
// on its own, so that an upgrade that changes one fails here naming it (rather than as a hang, a
// 500 or a second round trip somewhere else).

const root = fileURLToPath(new URL('../..', import.meta.url));
const pinned = (
  JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  }
).dependencies.postgres;
const driverDir = join(root, 'node_modules/postgres');
const installed = (JSON.parse(readFileSync(join(driverDir, 'package.json'), 'utf8')) as { version: string })
  .version;

describe('postgres.js as db/postgres-driver.ts relies on it', () => {
  it('is the pinned version, with patches/ holding its patch', () => {
    expect(pinned, 'package.json must pin postgres.js to one exact version (the patch is for it)').toMatch(
      /^\d+\.\d+\.\d+$/,
    );
    expect(installed, 'the installed postgres.js is not the version package.json pins').toBe(pinned);
    expect(
      existsSync(join(root, `patches/postgres+${installed}.patch`)),
      `no patches/postgres+${installed}.patch: carry the describe: false patch to this version (docs/decisions.md)`,
    ).toBe(true);
  });

  it('has the patch applied: an unnamed statement with describe: false skips the wait for its types', () => {
    for (const build of ['src', 'cjs/src', 'cf/src']) {
      const code = readFileSync(join(driverDir, build, 'connection.js'), 'utf8');
      expect(
        code,
        `${build}/connection.js lacks the describe: false condition: npm install did not apply the patch`,
      ).toContain('q.options.describe !== false');
    }
  });
});

describe.skipIf(!usingPostgres())(
  'postgres.js against a real server, as db/postgres-driver.ts uses it (skipped on PGlite, which does not use postgres.js)',
  () => {
    let fresh: DatabaseHandle & { url?: string };
    let url: string;
    beforeAll(async () => {
      fresh = await freshDatabase();
      url = fresh.url as string;
    });
    afterAll(async () => {
      await fresh?.close();
    });

    const bare = (options: postgres.Options<Record<string, never>> = {}) =>
      postgres(url, { max: 1, prepare: false, fetch_types: false, onnotice: () => {}, ...options });

    it('calls the `socket` option for each connection, with the host and port arrays the hook reads', async () => {
      const seen: unknown[] = [];
      const socket = (o: { host: string[]; port: number[] }) => {
        seen.push(o);
        return connect(o.port[0] ?? 5432, o.host[0] ?? 'localhost');
      };
      const sql = bare({ socket } as postgres.Options<Record<string, never>>);
      try {
        await sql`select 1`;
        expect(
          seen.length,
          'postgres.js no longer calls options.socket: the driver opens its own sockets',
        ).toBe(1);
        const o = seen[0] as { host: unknown; port: unknown };
        expect(
          Array.isArray(o.host) && Array.isArray(o.port),
          'options.socket is no longer given { host: string[], port: number[] }: socketFor reads them',
        ).toBe(true);
      } finally {
        await sql.end({ timeout: 0 });
      }
    });

    it('reads the codecs from sql.options.parsers and .serializers, changed after the client is made', async () => {
      const sql = bare();
      try {
        const options = sql.options as unknown as {
          parsers: Record<string, unknown>;
          serializers: Record<string, unknown>;
        };
        expect(typeof options.parsers, 'sql.options.parsers is gone: useTextCodecs writes there').toBe(
          'object',
        );
        expect(
          typeof options.serializers,
          'sql.options.serializers is gone: useTextCodecs writes there',
        ).toBe('object');
        options.parsers['1184'] = (value: unknown) => `as text: ${value}`;
        const [row] = await sql.unsafe(`select '2026-01-02 03:04:05+00'::timestamptz as at`);
        expect(row?.at, 'a parser set in sql.options.parsers after creation is not used any more').toMatch(
          /^as text: 2026-01-02 03:04:05/,
        );
      } finally {
        await sql.end({ timeout: 0 });
      }
    });

    it('works through Object.create: begin and savepoint overridden, everything else inherited', async () => {
      const sql = bare();
      try {
        let begun = 0;
        const guarded = Object.create(sql, {
          begin: {
            value: (...args: unknown[]) => {
              begun++;
              return (sql.begin as (...a: unknown[]) => unknown)(...args);
            },
          },
        }) as postgres.Sql;
        const rows = await guarded.unsafe('select 1 as one');
        expect(rows[0]?.one, 'a client made by Object.create(sql) no longer runs statements').toBe(1);
        const nested = await guarded.begin(async (tx) => {
          expect(typeof tx.savepoint, 'a transaction has no savepoint() to guard').toBe('function');
          const inner = Object.create(tx, { savepoint: { value: tx.savepoint.bind(tx) } }) as typeof tx;
          return inner.savepoint(async (sp) => (await sp.unsafe('select 2 as two'))[0]?.two);
        });
        expect(begun).toBe(1);
        expect(nested, 'a savepoint through Object.create(tx) no longer runs').toBe(2);
      } finally {
        await sql.end({ timeout: 0 });
      }
    });

    describe('through the adapter (db/postgres-driver.ts)', () => {
      let proxy: FaultProxy;
      let driver: PostgresDriver;
      beforeAll(async () => {
        proxy = await FaultProxy.start(url);
        driver = new PostgresDriver(proxy.url(url), {
          poolMax: 1,
          connectTimeoutSeconds: 5,
          statementTimeoutMs: 5_000,
          applicationName: 'driver-test',
        });
        await driver.runner.rows(sql`select 1`); // connected: the startup's round trips are behind us
      });
      afterAll(async () => {
        await driver?.retire(0);
        await proxy?.close();
      });

      it('sends a statement with parameters in one flight (describe: false)', async () => {
        const before = proxy.turns;
        const rows = await driver.runner.rows<{ n: number; s: string }>(
          sql`select ${41}::int + 1 as n, ${"it's"}::text as s`,
        );
        expect(rows).toEqual([{ n: 42, s: "it's" }]);
        expect(
          proxy.turns - before,
          'two round trips for one statement: postgres.js waits for the parameter types again (describe: false no longer read)',
        ).toBe(1);
      });

      it('answers timestamps as Postgres text and takes JSON parameters already serialised', async () => {
        const [row] = await driver.runner.rows<{ at: unknown; doc: unknown }>(
          sql`select '2026-01-02 03:04:05.678+00'::timestamptz as at, ${'{"a":1}'}::json as doc`,
        );
        expect(row?.at, 'timestamps are parsed again: the text codecs are not applied').toBe(
          '2026-01-02 03:04:05.678+00',
        );
        expect(row?.doc).toEqual({ a: 1 });
      });

      it('rolls a transaction and a savepoint back through the guarded scopes', async () => {
        await driver.runner.rows(sql`create temporary table t (n int)`);
        await expect(
          driver.runner.transaction(async (tx) => {
            await tx.rows(sql`insert into t values (1)`);
            await tx.transaction(async (sp) => sp.rows(sql`insert into t values (2)`));
            throw new Error('roll back');
          }),
        ).rejects.toThrow('roll back');
        expect(await driver.runner.rows(sql`select count(*)::int as n from t`)).toEqual([{ n: 0 }]);
      });

      it('opens no connection once retired: the socket hook refuses it', async () => {
        const retired = new PostgresDriver(url, {
          poolMax: 1,
          connectTimeoutSeconds: 5,
          statementTimeoutMs: 5_000,
          applicationName: 'driver-test',
        });
        await retired.runner.rows(sql`select 1`);
        await retired.retire(0);
        await expect(retired.runner.rows(sql`select 1`)).rejects.toThrow();
      });
    });
  },
);
