import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase, withDeadline } from '#db/client.ts';
import { rowsOf } from '#db/queries/agents.ts';
import { freshDatabase, usingPostgres } from '#test/helpers/database.ts';
import { FaultProxy } from './support/proxy.ts';
import { sleep, within } from './support/timing.ts';
import { selfSignedCertificate, startTlsProxy } from './support/tls-proxy.ts';

const connectionLost = () => Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });

describe.skipIf(!usingPostgres())('db/client.ts: replacing a broken client (real Postgres)', () => {
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
    rowsOf<{ pid: number }>(await handle.db.execute(sql`select pg_backend_pid() as pid`))[0]?.pid;

  it('replaces the client after a failure that broke a connection: the next statement runs on a new one', async () => {
    const before = await backendPid();
    await expect(withDeadline(handle.db, () => Promise.reject(connectionLost()))).rejects.toThrow(
      'ECONNRESET',
    );
    expect(await backendPid()).not.toBe(before);
  });

  it('keeps the client after a failure that did not (a constraint, a bug)', async () => {
    const before = await backendPid();
    for (const error of [Object.assign(new Error('dup'), { code: '23505' }), new TypeError('bug')]) {
      await expect(withDeadline(handle.db, () => Promise.reject(error))).rejects.toBe(error);
    }
    expect(await backendPid()).toBe(before);
  });

  it('replaces it once for a burst: a late failure from the old client leaves the new one’s work alone', async () => {
    // Started on the current client, failing late.
    const late = withDeadline(handle.db, async () => {
      await sleep(300);
      throw connectionLost();
    });
    // Fails at once: the client is replaced.
    await expect(withDeadline(handle.db, () => Promise.reject(connectionLost()))).rejects.toThrow();
    // Work on the new client, still running when the late failure arrives.
    const running = withDeadline(handle.db, () => handle.db.execute(sql`select pg_sleep(0.6) as slept`));
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
        await handle.db.execute(
          sql`select count(*)::int as n from pg_stat_activity where application_name = 'vaa-tls-test'`,
        ),
      )[0]?.n;
    const pid = async () =>
      rowsOf<{ pid: number }>(await tls.db.execute(sql`select pg_backend_pid() as pid`))[0]?.pid;
    try {
      // The proxy speaks nothing but TLS: a plain client would get no answer at all.
      const first = await pid();
      await expect(withDeadline(tls.db, () => Promise.reject(connectionLost()))).rejects.toThrow();
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
    const one = () => withDeadline(tls.db, () => tls.db.execute(sql`select 1 as one`));
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
});
