import sql from 'sql-template-tag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from '#db/client.ts';
import { pageAgentsJson } from '#db/queries/agents.ts';
import { authenticate } from '#db/queries/api-keys.ts';
import { createAgent } from '#db/queries/create-agent.ts';
import { pageSessionsJson } from '#db/queries/sessions.ts';
import { FaultProxy } from '#test/hardening/support/proxy.ts';
import { freshDatabase, usingPostgres } from '#test/helpers/database.ts';
import { createTenant, type Tenant } from '#test/helpers/tenants.ts';

// Every statement the API sends goes with its values as parameters, as an unnamed statement (named
// ones were measured and not taken: docs/decisions.md, "Data"), in one flight: Parse, Describe,
// Bind, Execute and Sync together (db/postgres-driver.ts, through this project's
// patch to postgres.js). Unpatched, postgres.js waits for the parameters' types before it sends
// Bind: two round trips, each a hop through RDS Proxy in AWS. This test fails if the patch is not
// applied.
describe.skipIf(!usingPostgres())(
  'one round trip per statement (real Postgres, through a counting proxy; skipped on PGlite, which has no wire)',
  () => {
    let fresh: DatabaseHandle & { url?: string };
    let proxy: FaultProxy;
    let handle: DatabaseHandle;
    let tenant: Tenant;

    beforeAll(async () => {
      fresh = await freshDatabase();
      tenant = await createTenant(fresh.db);
      proxy = await FaultProxy.start(fresh.url as string);
      handle = await openDatabase({ kind: 'postgres', url: proxy.url(fresh.url as string), poolMax: 1 });
      await handle.sql.rows(sql`select 1`); // connected: the startup's round trips are behind us
    });
    afterAll(async () => {
      await handle?.close();
      await proxy?.close();
      await fresh?.close();
    });

    const roundTrips = async (work: () => Promise<unknown>) => {
      const before = proxy.turns;
      await work();
      return proxy.turns - before;
    };

    it('for each route statement and the authorizer lookup, filters and cursors included', async () => {
      const runner = handle.sql;
      const { workspaceId, principalId, keyId } = tenant;
      const after = { createdAt: '2026-01-01T00:00:00.000Z', id: "it's\\odd" };
      const counts = {
        authenticate: await roundTrips(() => authenticate(runner, tenant.token)),
        create: await roundTrips(() =>
          createAgent(runner, {
            workspaceId,
            principalId,
            keyId,
            name: "O'Brien \\ agent",
            description: null,
            slug: { derivedFrom: 'o-brien' },
            version: {
              config: null,
              systemPrompt: 'Be brief.',
              inputMode: ['WEB_VOICE'],
              followUp: false,
              knowledgeBaseId: null,
            },
          }),
        ),
        agents: await roundTrips(() =>
          pageAgentsJson(
            runner,
            { workspaceId, keyId },
            { limit: 26, offset: 0 },
            { q: "50%_O'", status: ['PUBLISHED'] },
          ),
        ),
        sessions: await roundTrips(() =>
          pageSessionsJson(
            runner,
            { workspaceId, keyId },
            { limit: 251, offset: 0, after },
            { agentId: ['a', 'b'], hasLedger: true },
          ),
        ),
      };
      expect(counts).toEqual({ authenticate: 1, create: 1, agents: 1, sessions: 1 });
    });

    it('one with or without parameters; the values reach Postgres exactly, NUL refused by Postgres', async () => {
      expect(await roundTrips(() => handle.sql.rows(sql`select 1 as v`))).toBe(1);
      const hostile = "it's \\ 'odd' \\' $1 -- ;";
      let rows: Array<{ v: string }> = [];
      expect(
        await roundTrips(async () => (rows = await handle.sql.rows(sql`select ${hostile}::text as v`))),
      ).toBe(1);
      expect(rows).toEqual([{ v: hostile }]);
      await expect(handle.sql.rows(sql`select ${'a\0b'}::text as v`)).rejects.toMatchObject({
        code: '22021',
      });
    });

    it('types each parameter from its context, as Postgres types a literal', async () => {
      const rows = await handle.sql.rows<{ n: number; later: boolean; same: boolean; flag: boolean }>(
        sql`select ${41}::int + 1 as n,
          ${'2026-01-01T00:00:00.000001Z'}::timestamptz > ${'2026-01-01T00:00:00Z'}::timestamptz as later,
          ${'{"a":1}'}::jsonb = '{"a": 1}'::jsonb as same, ${true} as flag`,
      );
      expect(rows).toEqual([{ n: 42, later: true, same: true, flag: true }]);
      // A mistyped value is Postgres's 22P02 in one flight too, never text taken as something else.
      await expect(handle.sql.rows(sql`select ${'x'}::int as n`)).rejects.toMatchObject({ code: '22P02' });
    });
  },
);
