import { createId } from '@paralleldrive/cuid2';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '#db/client.ts';
import { usageReport } from '#db/queries/ledger.ts';
import { createApiKey } from '#db/queries/manage-api-keys.ts';
import { pageSessionsJson } from '#db/queries/sessions.ts';
import { freshDatabase, usingPostgres } from '#test/helpers/database.ts';
import { peer } from '../../bench/peer.ts';
import { type SeededWorkspace, seedWorkspaces } from '../../bench/seed.ts';

// The peer runs on postgres.js (Drizzle's postgres-js driver), as the bench runs it.
describe.runIf(usingPostgres())("the bench's Drizzle peer", () => {
  let handle: DatabaseHandle & { url?: string };
  let client: postgres.Sql;
  let seeded: SeededWorkspace;
  let caller: { workspaceId: string; keyId: string };
  let answer: ReturnType<typeof peer>;

  beforeAll(async () => {
    handle = await freshDatabase();
    const principalId = createId();
    [seeded] = (await seedWorkspaces(handle.db, [
      { name: 'Bench A', tag: 'a', sessions: 120, principalId },
    ])) as [SeededWorkspace];
    const key = await createApiKey(handle.db, {
      workspaceId: seeded.workspaceId,
      name: 'reader',
      scopes: [],
    });
    caller = { workspaceId: seeded.workspaceId, keyId: key.id };
    client = postgres(handle.url as string, { max: 1, onnotice: () => {} });
    answer = peer(client, seeded.workspaceId, principalId, key.id);
  });
  afterAll(async () => {
    await client.end();
    await handle.close();
  });

  it('answers GET /usage with the document the API answers, to the unit, whatever the grouping or zone', async () => {
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    // The seeded sessions (with their voice seconds) are the last hours; the metered entries span
    // the last 30 days, so the second window's ends cut the data in any zone.
    const windows = [
      { from: day(Date.now() - 40 * 86_400_000), to: day(Date.now() + 86_400_000) },
      { from: day(Date.now() - 20 * 86_400_000), to: day(Date.now() - 5 * 86_400_000) },
    ];
    for (const [w, window] of windows.entries())
      for (const q of [
        { groupBy: 'day', timezone: 'UTC' },
        { groupBy: 'day', timezone: 'Asia/Kolkata' },
        { groupBy: 'agent', timezone: 'UTC' },
        { groupBy: 'agent', timezone: 'Asia/Kolkata' },
        { groupBy: 'agent', timezone: 'America/St_Johns' },
      ] as const) {
        const api = await usageReport(handle.sql, caller, { ...window, ...q });
        const { status, body } = await answer({ kind: 'usage', ...window, ...q }, '');
        expect(status).toBe(200);
        expect(JSON.parse(body), `${q.groupBy} in ${q.timezone}, window ${w}`).toEqual(api);
        expect(api.total.entries).toBeGreaterThan(300);
        if (w === 0) expect(api.total.voiceSeconds).toBeGreaterThan(0);
      }
  });

  it('lists the sessions the API lists, in its order, at an offset as on the first page', async () => {
    for (const offset of [0, 7, 60]) {
      const api = await pageSessionsJson(handle.sql, caller, { limit: 25, offset });
      const { status, body } = await answer({ kind: 'sessions', limit: 25, offset }, '');
      expect(status).toBe(200);
      const ids = (JSON.parse(body) as Array<{ id: string }>).map((s) => s.id);
      // The API reads one more than the page, to know whether another follows.
      const apiIds = api.items.slice(0, 25).map((item) => (JSON.parse(item) as { id: string }).id);
      expect(ids, `offset ${offset}`).toEqual(apiIds);
      expect(ids).toHaveLength(25);
    }
  });
});
