import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from '#db/client.ts';
import { rowsOf } from '#db/queries/rows.ts';
import { silentLogger } from '#functions/http/log.ts';
import { type Gateway, startGateway } from '#infra/local/gateway.ts';
import { freshDatabase, usingPostgres } from '#test/helpers/database.ts';
import { createTenant, type Tenant } from '#test/helpers/tenants.ts';
import { checkAnswer } from './support/app.ts';
import { type HttpAnswer, send } from './support/http.ts';
import { sleep } from './support/timing.ts';

/**
 * Chaos through the local gateway on real Postgres: the API's connections killed over and over
 * under concurrent readers and idempotent writers; the database refusing connections; the database
 * renamed away. Every fault is applied to this file's own database only (the server is shared):
 * backends are chosen by this database's name and our application_name, ALTER DATABASE names ours.
 */
const KILL_EVERY_MS = 250;
const KILLING_FOR_MS = 8_000;
const READERS = 6;
const WRITERS = 2;

describe.skipIf(!usingPostgres())(
  'chaos through the local gateway (real Postgres; skipped on PGlite, which has no connection to break)',
  () => {
    let fresh: DatabaseHandle & { url?: string };
    let admin: postgres.Sql;
    let api: DatabaseHandle;
    let gateway: Gateway;
    let tenant: Tenant;
    let name: string;
    const APP = `vaa-chaos-${randomBytes(4).toString('hex')}`;

    beforeAll(async () => {
      fresh = await freshDatabase({ poolMax: 1 });
      tenant = await createTenant(fresh.db);
      name = new URL(fresh.url as string).pathname.slice(1);
      // The server's own database, never ours: ours must be free of connections to be renamed.
      admin = postgres(process.env.DATABASE_URL as string, { max: 1, onnotice: () => {} });
      const url = new URL(fresh.url as string);
      url.searchParams.set('application_name', APP);
      api = await openDatabase({
        kind: 'postgres',
        url: url.toString(),
        poolMax: 2,
        requestTimeoutMs: 4_000,
      });
      // No authorizer cache: every request runs the authorizer's lookup too.
      gateway = await startGateway({
        deps: { database: api, logger: silentLogger },
        authorizerCacheTtlSeconds: 0,
      });
    });
    afterAll(async () => {
      await gateway?.close();
      await api?.close();
      await admin?.unsafe(`alter database "${name}" allow_connections true`).catch(() => {});
      await admin?.end();
      await fresh?.close();
    });

    const auth = () => ({ authorization: `Bearer ${tenant.token}`, connection: 'close' });
    const read = (i: number) =>
      send(gateway.url, { path: i % 2 ? '/agents?limit=5' : '/sessions?limit=5', headers: auth() });
    const create = (key: string) =>
      send(gateway.url, {
        method: 'POST',
        path: '/agents',
        headers: { ...auth(), 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify({ name: `Chaos ${key}` }),
      });

    /** Ends the API's connections to our database (and only those). */
    const killApi = async () =>
      (
        await admin`select pg_terminate_backend(pid) from pg_stat_activity
                  where datname = ${name} and application_name = ${APP}`
      ).length;

    it('kills every 250 ms under concurrent readers and idempotent writers: no failed read, one row per key', async () => {
      const figures = {
        kills: 0,
        killed: 0,
        reads: 0,
        failedReads: 0,
        writes: 0,
        write503: 0,
        write409: 0,
        keys: 0,
      };
      const failures: HttpAnswer[] = [];
      let killing = true;
      const killer = (async () => {
        const until = Date.now() + KILLING_FOR_MS;
        while (Date.now() < until) {
          await sleep(KILL_EVERY_MS);
          figures.killed += await killApi();
          figures.kills++;
        }
        killing = false;
      })();
      const reader = async (n: number) => {
        for (let i = n; killing; i++) {
          const answer = await read(i);
          figures.reads++;
          if (answer.statusCode !== 200) {
            figures.failedReads++;
            failures.push(answer);
          } else checkAnswer(i % 2 ? 'list-agents' : 'list-sessions', answer);
        }
      };
      const keys: string[] = [];
      const writer = async (n: number) => {
        for (let i = 0; killing; i++) {
          const key = `chaos-${n}-${i}-${randomBytes(3).toString('hex')}`;
          keys.push(key);
          // The client's own retry, safe under its Idempotency-Key, until the agent exists.
          for (let answer = await create(key); ; answer = await create(key)) {
            figures.writes++;
            if (answer.statusCode === 201) break;
            if (answer.statusCode === 503) figures.write503++;
            else if (answer.statusCode === 409) figures.write409++;
            else throw new Error(`create answered ${answer.statusCode}: ${answer.body}`);
            await sleep(answer.statusCode === 409 ? 500 : 50);
          }
        }
      };
      await Promise.all([
        killer,
        ...Array.from({ length: READERS }, (_, n) => reader(n)),
        ...Array.from({ length: WRITERS }, (_, n) => writer(n)),
      ]);
      const rows = rowsOf<{ name: string; n: number }>(
        await fresh.db.execute(
          sql`select name, count(*)::int as n from agents where name like 'Chaos %' group by name`,
        ),
      );
      figures.keys = keys.length;
      console.info(`[chaos] kills: ${JSON.stringify(figures)}`);
      expect(failures.map((f) => `${f.statusCode} ${f.body}`)).toEqual([]);
      expect(figures.killed).toBeGreaterThan(0);
      expect(rows.length).toBe(keys.length);
      expect(rows.every((r) => r.n === 1)).toBe(true);
      expect(rows.map((r) => r.name).sort()).toEqual(keys.map((k) => `Chaos ${k}`).sort());
    }, 120_000);

    /** 503 with Retry-After while `down`, then the ms until the first 200 once `up` ran. */
    async function outage(down: () => Promise<void>, up: () => Promise<void>) {
      await down();
      const during: number[] = [];
      for (let i = 0; i < 6; i++) {
        const answer = await read(i);
        during.push(answer.statusCode);
        expect(answer.headers['retry-after'], answer.body).toMatch(/^\d+$/);
        checkAnswer(i % 2 ? 'list-agents' : 'list-sessions', answer, { allow503: true });
      }
      const created = await create(`outage-${randomBytes(3).toString('hex')}`);
      during.push(created.statusCode);
      await up();
      const started = performance.now();
      let recovered: number | undefined;
      for (let i = 0; recovered === undefined && performance.now() - started < 20_000; i++) {
        if ((await read(i)).statusCode === 200) recovered = Math.round(performance.now() - started);
        else await sleep(100);
      }
      return { during, recovered };
    }

    it('answers 503 while the database refuses connections (ALLOW_CONNECTIONS false), and recovers within seconds', async () => {
      const { during, recovered } = await outage(
        async () => {
          await admin.unsafe(`alter database "${name}" allow_connections false`);
          await killApi();
        },
        () => admin.unsafe(`alter database "${name}" allow_connections true`).then(() => {}),
      );
      console.info(
        `[chaos] allow_connections false: answers ${JSON.stringify(during)}, recovered in ${recovered} ms`,
      );
      expect(new Set(during)).toEqual(new Set([503]));
      expect(recovered).toBeDefined();
      expect(recovered).toBeLessThan(5_000);
    }, 60_000);

    it('answers 503 while the database is renamed away (3D000), and recovers within seconds once it is back', async () => {
      const away = `${name}_away`;
      const { during, recovered } = await outage(
        async () => {
          // Renaming needs our database free of connections: end them (ours only) until it succeeds.
          for (let attempt = 0; ; attempt++) {
            await admin`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${name}`;
            try {
              await admin.unsafe(`alter database "${name}" rename to "${away}"`);
              return;
            } catch (error) {
              if (attempt > 50) throw error;
              await sleep(20);
            }
          }
        },
        () => admin.unsafe(`alter database "${away}" rename to "${name}"`).then(() => {}),
      );
      console.info(`[chaos] renamed away: answers ${JSON.stringify(during)}, recovered in ${recovered} ms`);
      expect(new Set(during)).toEqual(new Set([503]));
      expect(recovered).toBeDefined();
      expect(recovered).toBeLessThan(5_000);
    }, 60_000);
  },
);
