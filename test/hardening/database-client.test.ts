import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase, withDeadline } from '#db/client.ts';
import { rowsOf } from '#db/queries/agents.ts';
import { freshDatabase, usingPostgres } from '#test/helpers/database.ts';
import { sleep } from './support/timing.ts';

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
});
