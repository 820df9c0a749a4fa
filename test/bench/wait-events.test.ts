import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { formatWaits, poolWaits, sampleWaits } from '../../bench/wait-events.ts';
import { freshDatabase, usingPostgres } from '../helpers/database.ts';

describe.runIf(usingPostgres())("the bench's sampler of what the database's backends wait on", () => {
  it('sees a backend blocked on a lock as lock, one computing as CPU, and none of its own', async () => {
    const db = await freshDatabase();
    const url = db.url as string;
    const holder = postgres(url, { max: 1, onnotice: () => {} });
    const waiter = postgres(url, { max: 1, onnotice: () => {} });
    const worker = postgres(url, { max: 1, onnotice: () => {} });
    const sampler = postgres(url, { max: 1, onnotice: () => {} });
    try {
      // Connected first, and sampled a while: on a loaded machine the connection alone took most of
      // a shorter window, and the sampler polled only twice.
      await sampler`select 1`;
      const idle = sampleWaits(sampler);
      await new Promise((resolve) => setTimeout(resolve, 400));
      const nothing = await idle();
      expect(nothing.polls).toBeGreaterThan(2);
      expect(Object.values(nothing.active).reduce((a, b) => a + b, 0)).toBe(0);

      let release = () => {};
      const held = holder.begin(async (tx) => {
        await tx`lock table agents in access exclusive mode`;
        await new Promise<void>((resolve) => {
          release = resolve;
        });
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      const blocked = waiter`select count(*) from agents`.execute();
      // Runs until cancelled below: on a core for the whole sampling, however fast the machine (in
      // the select list, the series is streamed, not spilled to a temporary file).
      const busy = worker`select sum(x) from (select generate_series(1, 1000000000000) as x) s`
        .execute()
        .catch(() => {});
      // Both running before the sampling starts, however loaded the machine.
      for (let tries = 0; ; tries++) {
        const [both] = await sampler<{ lock: number; cpu: number }[]>`
          select count(*) filter (where wait_event_type = 'Lock')::int as lock,
            count(*) filter (where query like '%1000000000000%')::int as cpu
          from pg_stat_activity
          where datname = current_database() and state = 'active' and pid <> pg_backend_pid()`;
        if ((both?.lock ?? 0) > 0 && (both?.cpu ?? 0) > 0) break;
        if (tries > 400) throw new Error('the waiter and the worker never both ran');
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      const stop = sampleWaits(sampler);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const seen = await stop();
      // Cancelled until it has ended: one cancel may land before the statement has begun.
      let busyEnded = false;
      void busy.then(() => {
        busyEnded = true;
      });
      while (!busyEnded) {
        await sampler`select pg_cancel_backend(pid) from pg_stat_activity
          where datname = current_database() and query like '%1000000000000%' and pid <> pg_backend_pid()`;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      release();
      await Promise.all([held, blocked, busy]);

      expect(seen.active.lock).toBeGreaterThan(0);
      expect(seen.active.cpu).toBeGreaterThan(0);
      expect(seen.active.walFlush).toBe(0);
      // The waiter and the worker, at most: the holder is idle in its transaction, the sampler excluded.
      const total = Object.values(seen.active).reduce((a, b) => a + b, 0);
      expect(total).toBeLessThanOrEqual(2 * seen.polls);

      const pooled = poolWaits([nothing, seen]);
      expect(pooled?.polls).toBe(nothing.polls + seen.polls);
      expect(pooled?.active.lock).toBe(seen.active.lock);
      expect(poolWaits([seen, undefined])).toBeUndefined();
      expect(formatWaits(seen)).toMatch(
        /^\d+\.\d active: CPU \d+ % · WAL flush 0 % · lock \d+ % · other \d+ %$/,
      );
    } finally {
      await Promise.all([holder.end(), waiter.end(), worker.end(), sampler.end()]);
      await db.close();
    }
  });
});
