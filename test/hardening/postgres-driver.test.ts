import postgres from 'postgres';
import sql from 'sql-template-tag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from '#db/client.ts';
import { failurePhase } from '#db/errors.ts';
import { freshDatabase, usingPostgres } from '#test/helpers/database.ts';
import { FaultProxy } from './support/proxy.ts';
import { within } from './support/timing.ts';

/**
 * The postgres.js behaviour db/postgres-driver.ts works around, shown on the driver alone. When
 * this test fails after a driver upgrade, the driver has changed: the workaround (the socket that
 * turns an unanswered close into an error) may be dropped, and this test with it.
 */
describe.skipIf(!usingPostgres())(
  'postgres.js on its own (real Postgres, through a fault proxy; skipped on PGlite, which does not use postgres.js)',
  () => {
    let fresh: DatabaseHandle & { url?: string };
    let proxy: FaultProxy;

    beforeAll(async () => {
      fresh = await freshDatabase();
      proxy = await FaultProxy.start(fresh.url as string);
    });
    afterAll(async () => {
      await proxy?.close();
      await fresh?.close();
    });

    it('never answers a query while connections are accepted and closed unanswered, reconnecting in a loop', async () => {
      await proxy.setMode('close');
      const bare = postgres(proxy.url(fresh.url as string), {
        max: 1,
        connect_timeout: 5,
        onnotice: () => {},
      });
      const accepted = proxy.accepted;
      try {
        // Three seconds, well under its own connect_timeout of five: neither answer nor error.
        const { value } = await within(
          3_000,
          bare`select 1`.then(
            () => 'answered',
            () => 'failed',
          ),
        );
        expect(value).toBeUndefined();
        // Not a few attempts: a tight reconnect loop.
        expect(proxy.accepted - accepted).toBeGreaterThan(100);
      } finally {
        await proxy.setMode('pass');
        await bare.end({ timeout: 0 });
      }
    });

    it('the client answers at once instead: the statement failed while connecting (a 503, run again if a read)', async () => {
      await proxy.setMode('close');
      const client = await openDatabase({
        kind: 'postgres',
        url: proxy.url(fresh.url as string),
        poolMax: 1,
      });
      const accepted = proxy.accepted;
      try {
        const { value, ms } = await within(
          3_000,
          client.run((q) => q.rows(sql`select 1`), { repeatable: true }).catch((e: unknown) => e),
        );
        expect(failurePhase(value)).toBe('connecting');
        expect(ms).toBeLessThan(1_000);
        expect(proxy.accepted - accepted).toBeLessThan(5);
      } finally {
        await proxy.setMode('pass');
        await client.close();
      }
    });
  },
);
