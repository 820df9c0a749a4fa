import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import sql from 'sql-template-tag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase, type SqlRunner } from '#db/client.ts';
import { failurePhase } from '#db/errors.ts';
import { rowsOf } from '#db/queries/rows.ts';
import { freshDatabase, usingPostgres } from '#test/helpers/database.ts';
import { selfSignedCertificate, startTlsProxy } from '#test/helpers/tls-proxy.ts';
import { FaultProxy } from './support/proxy.ts';
import { sleep, within } from './support/timing.ts';

const connectionLost = () => Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
const write = { repeatable: false };
const read = { repeatable: true };

describe.skipIf(!usingPostgres())(
  'db/client.ts: replacing a broken client (real Postgres; skipped on PGlite, which has no connection to break)',
  () => {
    let fresh: DatabaseHandle & { url?: string };
    let handle: DatabaseHandle;

    beforeAll(async () => {
      fresh = await freshDatabase();
      handle = await openDatabase({ kind: 'postgres', url: fresh.url as string, poolMax: 2 });
    });
    afterAll(async () => {
      await handle?.close();
      await fresh?.close();
    });

    const backendPid = async () =>
      rowsOf<{ pid: number }>(await handle.sql.rows(sql`select pg_backend_pid() as pid`))[0]?.pid;

    it('replaces the client after a failure that broke a connection: the next statement runs on a new one', async () => {
      const before = await backendPid();
      await expect(handle.run(() => Promise.reject(connectionLost()), write)).rejects.toThrow('ECONNRESET');
      expect(await backendPid()).not.toBe(before);
    });

    it('keeps the client after a failure that did not (a constraint, a bug)', async () => {
      const before = await backendPid();
      for (const error of [Object.assign(new Error('dup'), { code: '23505' }), new TypeError('bug')]) {
        await expect(handle.run(() => Promise.reject(error), write)).rejects.toBe(error);
      }
      expect(await backendPid()).toBe(before);
    });

    it('replaces it once for a burst: a late failure from the old client leaves the new one’s work alone', async () => {
      // Started on the current client, failing late.
      const late = handle.run(async () => {
        await sleep(300);
        throw connectionLost();
      }, write);
      // Fails at once: the client is replaced.
      await expect(handle.run(() => Promise.reject(connectionLost()), write)).rejects.toThrow();
      // Work on the new client, still running when the late failure arrives.
      const running = handle.run((db) => db.rows(sql`select pg_sleep(0.6) as slept`), write);
      await expect(late).rejects.toThrow('ECONNRESET');
      await expect(running).resolves.toBeDefined();
    });

    it('connects, replaces its client and closes over TLS (sslmode=require), as it must through RDS Proxy', async () => {
      const target = new URL(fresh.url as string);
      const proxy = await startTlsProxy(
        { host: target.hostname, port: Number(target.port || 5432) },
        selfSignedCertificate(),
      );
      const url = new URL(target);
      url.port = String(proxy.port);
      url.searchParams.set('sslmode', 'require');
      url.searchParams.set('application_name', 'vaa-tls-test');
      const tls = await openDatabase({ kind: 'postgres', url: url.toString(), poolMax: 2 });
      const ours = async () =>
        rowsOf<{ n: number }>(
          await handle.sql.rows(
            sql`select count(*)::int as n from pg_stat_activity where application_name = 'vaa-tls-test'`,
          ),
        )[0]?.n;
      const pid = async () =>
        rowsOf<{ pid: number }>(await tls.sql.rows(sql`select pg_backend_pid() as pid`))[0]?.pid;
      try {
        // The proxy speaks nothing but TLS: a plain client would get no answer at all.
        const first = await pid();
        await expect(tls.run(() => Promise.reject(connectionLost()), write)).rejects.toThrow();
        expect(await pid()).not.toBe(first);
        for (let i = 0; i < 20 && (await ours()) !== 1; i++) await sleep(50);
        expect(await ours()).toBe(1);
      } finally {
        await tls.close();
        await proxy.close();
      }
      for (let i = 0; i < 20 && (await ours()) !== 0; i++) await sleep(50);
      expect(await ours()).toBe(0);
    });

    it('over TLS, turns a black hole into a timeout, replaces the client without crashing, and recovers', async () => {
      const target = new URL(fresh.url as string);
      const tlsProxy = await startTlsProxy(
        { host: target.hostname, port: Number(target.port || 5432) },
        selfSignedCertificate(),
      );
      const behindTls = new URL(target);
      behindTls.port = String(tlsProxy.port);
      const faults = await FaultProxy.start(behindTls.toString());
      const url = new URL(faults.url(behindTls.toString()));
      url.searchParams.set('sslmode', 'require');
      const tls = await openDatabase({
        kind: 'postgres',
        url: url.toString(),
        poolMax: 1,
        requestTimeoutMs: 1_000,
      });
      const one = () => tls.run((db) => db.rows(sql`select 1 as one`), write);
      try {
        await one();
        faults.blackholeAll();
        await faults.setMode('blackhole');
        const { value, ms } = await within(
          3_000,
          one().then(
            () => 'answered',
            (e: { code?: string }) => e.code,
          ),
        );
        expect(value).toBe('DATABASE_TIMEOUT');
        expect(ms).toBeLessThan(2_000);
        await faults.setMode('pass');
        // The dead TLS socket is cut a second after postgres.js let go of it; no uncaught error.
        await sleep(1_200);
        await expect(one()).resolves.toBeDefined();
      } finally {
        await tls.close();
        await faults.close();
        await tlsProxy.close();
      }
    });
  },
);

describe.skipIf(!usingPostgres())(
  'db/client.ts: which work runs again (real Postgres; skipped on PGlite, which has no connection to break)',
  () => {
    let fresh: DatabaseHandle & { url?: string };
    let admin: postgres.Sql;
    let proxy: FaultProxy;
    const opened: DatabaseHandle[] = [];
    const APP = `vaa-retry-${randomBytes(4).toString('hex')}`;

    beforeAll(async () => {
      fresh = await freshDatabase();
      admin = postgres(fresh.url as string, { max: 1, onnotice: () => {} });
      proxy = await FaultProxy.start(fresh.url as string);
    });
    afterAll(async () => {
      await Promise.all(opened.map((h) => h.close()));
      await proxy?.close();
      await admin?.end();
      await fresh?.close();
    });

    async function client(url = fresh.url as string, extra: object = {}) {
      const target = new URL(url);
      target.searchParams.set('application_name', APP);
      const handle = await openDatabase({ kind: 'postgres', url: target.toString(), poolMax: 1, ...extra });
      opened.push(handle);
      return handle;
    }

    /** Backends already ended: one that is still exiting can linger in pg_stat_activity a moment. */
    const ended = new Set<number>();

    /** Ends our connections mid-statement, as a failover or an administrator does (this database only). */
    const killOurs = async () => {
      const rows = await admin<{ pid: number }[]>`select pid, pg_terminate_backend(pid) from pg_stat_activity
          where datname = current_database() and application_name = ${APP}`;
      for (const { pid } of rows) ended.add(pid);
    };

    /** Waits until our `pg_sleep` runs on a live backend (a fixed delay misses it on a slow machine). */
    const sleepRunning = async () => {
      for (const until = Date.now() + 5_000; Date.now() < until; await sleep(10)) {
        const running = await admin<{ pid: number }[]>`select pid from pg_stat_activity
          where datname = current_database() and application_name = ${APP}
            and state = 'active' and query like '%pg_sleep%'`;
        if (running.some(({ pid }) => !ended.has(pid))) return;
      }
      throw new Error('the statement never started on the server');
    };

    /** A statement that is killed while it runs on the server (attempts up to `kills`), then left to finish. */
    const killedMidStatement = async (db: SqlRunner, attempt: number, kills = 1) => {
      // Started now (Drizzle's query runs when first awaited), so it is running when the kill comes.
      const running = db.rows(sql`select pg_sleep(0.6) as slept`).then((rows) => rows);
      running.catch(() => {}); // it fails while we are still killing; the caller sees the failure
      if (attempt <= kills) {
        await sleepRunning();
        await killOurs();
      }
      return running;
    };

    it('runs a read once more on a fresh connection when its connection was killed mid-statement', async () => {
      const handle = await client();
      await handle.run((db) => db.rows(sql`select 1`), read);
      const dbs: SqlRunner[] = [];
      const answer = await handle.run((db) => killedMidStatement(db, dbs.push(db)), read);
      expect(answer).toBeDefined();
      expect(dbs).toHaveLength(2);
      expect(dbs[1]).not.toBe(dbs[0]);
    });

    it('runs a read again each time its open connection is killed, as long as its deadline allows', async () => {
      const handle = await client();
      await handle.run((db) => db.rows(sql`select 1`), read);
      let attempts = 0;
      const answer = await handle.run((db) => killedMidStatement(db, ++attempts, 4), read);
      expect(answer).toBeDefined();
      expect(attempts).toBe(5);
    });

    it('does not run a write again when its connection broke mid-statement: what it did is unknown', async () => {
      const handle = await client();
      await handle.run((db) => db.rows(sql`select 1`), write);
      let attempts = 0;
      const error = await handle
        .run((db) => killedMidStatement(db, ++attempts), write)
        .catch((e: unknown) => e);
      expect(failurePhase(error)).toBe('connection');
      expect(attempts).toBe(1);
      // The next request is served on a fresh connection.
      await expect(handle.run((db) => db.rows(sql`select 1`), write)).resolves.toBeDefined();
    });

    it('runs a write once more when it failed while connecting: nothing of it reached the server', async () => {
      const handle = await client(proxy.url(fresh.url as string));
      let attempts = 0;
      const answer = await handle.run(async (db) => {
        attempts++;
        await proxy.setMode(attempts === 1 ? 'refuse' : 'pass');
        return db.rows(sql`select 1 as one`);
      }, write);
      expect(answer).toBeDefined();
      expect(attempts).toBe(2);
    });

    it('gives up within the same deadline: a read that keeps failing runs three times at most, not forever', async () => {
      const handle = await client(proxy.url(fresh.url as string), { requestTimeoutMs: 1_500 });
      await proxy.setMode('refuse');
      let attempts = 0;
      const { value } = await within(
        3_000,
        handle
          .run((db) => {
            attempts++;
            return db.rows(sql`select 1`);
          }, read)
          .catch((e: unknown) => failurePhase(e)),
      );
      expect(value).toBe('connecting');
      expect(attempts).toBe(3);
      await proxy.setMode('pass');
    });

    it('sends the host name as the TLS server name (SNI), and none for an IP address', async () => {
      const target = new URL(fresh.url as string);
      const tlsProxy = await startTlsProxy(
        { host: target.hostname, port: Number(target.port || 5432) },
        selfSignedCertificate(),
      );
      try {
        for (const host of ['localhost', '127.0.0.1']) {
          const url = new URL(target);
          url.hostname = host;
          url.port = String(tlsProxy.port);
          url.searchParams.set('sslmode', 'require');
          const tls = await client(url.toString());
          await tls.run((db) => db.rows(sql`select 1`), read);
          await tls.close();
        }
        expect(tlsProxy.servernames).toEqual(['localhost', false]);
      } finally {
        await tlsProxy.close();
      }
    });

    it('after refused credentials, asks refreshUrl once for a current URL and answers the request with it', async () => {
      const suffix = randomBytes(5).toString('hex');
      const [before, after] = [`vaa_rot_${suffix}_a`, `vaa_rot_${suffix}_b`];
      const database = new URL(fresh.url as string).pathname.slice(1);
      for (const role of [before, after]) {
        await admin.unsafe(`create role "${role}" login password 'first-${suffix}'`);
        await admin.unsafe(`grant connect on database "${database}" to "${role}"`);
        await admin.unsafe(`grant select on all tables in schema public to "${role}"`);
      }
      const as = (role: string) => {
        const url = new URL(fresh.url as string);
        url.username = role;
        url.password = `first-${suffix}`;
        return url.toString();
      };
      let refreshed = 0;
      const handle = await client(as(before), {
        refreshUrl: async () => {
          refreshed++;
          return as(after);
        },
      });
      const whoAmI = async () =>
        rowsOf<{ who: string }>(await handle.run((db) => db.rows(sql`select current_user as who`), read))[0]
          ?.who;
      try {
        expect(await whoAmI()).toBe(before);
        // The rotation: the old password changes and (the test server trusting every local
        // connection, so never checking a password) the old role may no longer log in: 28000,
        // as a wrong password is 28P01 on a server that checks it.
        await admin.unsafe(`alter role "${before}" password 'second-${suffix}' nologin`);
        await admin`select pg_terminate_backend(pid) from pg_stat_activity
                  where datname = current_database() and usename = ${before}`;
        expect(await whoAmI()).toBe(after);
        expect(refreshed).toBe(1);
        expect(await whoAmI()).toBe(after);
        expect(refreshed).toBe(1);
      } finally {
        await handle.close();
        for (const role of [before, after]) {
          await admin.unsafe(`revoke all on all tables in schema public from "${role}"`);
          await admin.unsafe(`revoke connect on database "${database}" from "${role}"`);
          await admin.unsafe(`drop role if exists "${role}"`);
        }
      }
    });
  },
);
