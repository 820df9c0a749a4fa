import { sql } from 'drizzle-orm';
import statement from 'sql-template-tag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '#db/client.ts';
import { takeRequest } from '#db/queries/workspace-limits.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { createTenant } from '#test/helpers/tenants.ts';

const tier = { rate: 2, burst: 4, dailyQuota: 10 };

describe("a workspace's bucket and daily count in its row", () => {
  let database: DatabaseHandle;
  beforeAll(async () => {
    database = await freshDatabase();
  });
  afterAll(async () => {
    await database?.close();
  });

  const usedOf = (workspaceId: string) =>
    database.sql.rows(statement`select used from workspace_limits where workspace_id = ${workspaceId}`);
  const take = (workspaceId: string, now: number, limits = tier) =>
    takeRequest(database.sql, workspaceId, limits, now);

  it('lets the burst through, refuses with the seconds until a token is back, refills at the rate', async () => {
    const { workspaceId } = await createTenant(database.db);
    const t0 = Date.UTC(2026, 0, 1, 12);
    for (let i = 0; i < tier.burst; i++) expect(await take(workspaceId, t0)).toEqual({ ok: true });
    expect(await take(workspaceId, t0)).toEqual({ ok: false, quota: false, retryAfter: 1 });
    // Half a second refills one token at 2/s: one more, then refused again.
    expect(await take(workspaceId, t0 + 500)).toEqual({ ok: true });
    expect(await take(workspaceId, t0 + 500)).toEqual({ ok: false, quota: false, retryAfter: 1 });
    // A slow tier says how long a token takes: 1 / 0.25 = 4 s.
    const slow = { rate: 0.25, burst: 1, dailyQuota: 10 };
    const other = await createTenant(database.db);
    expect(await take(other.workspaceId, t0, slow)).toEqual({ ok: true });
    expect(await take(other.workspaceId, t0, slow)).toEqual({ ok: false, quota: false, retryAfter: 4 });
  });

  it("counts a UTC day's requests, refuses past the quota until midnight, and starts again the next day", async () => {
    const { workspaceId } = await createTenant(database.db);
    const evening = Date.UTC(2026, 0, 1, 23, 0, 0);
    for (let i = 0; i < tier.dailyQuota; i++)
      expect(await take(workspaceId, evening + i * 1000)).toEqual({ ok: true });
    expect(await take(workspaceId, evening + 20_000)).toEqual({ ok: false, quota: true, retryAfter: 3580 });
    // A refusal writes nothing: the count stays at the quota.
    expect(await usedOf(workspaceId)).toEqual([{ used: tier.dailyQuota }]);
    expect(await take(workspaceId, Date.UTC(2026, 0, 2, 0, 0, 1))).toEqual({ ok: true });
  });

  it('keeps its workspaces apart, and goes with its workspace', async () => {
    const a = await createTenant(database.db);
    const b = await createTenant(database.db);
    const t0 = Date.UTC(2026, 0, 3);
    for (let i = 0; i < tier.burst; i++) await take(a.workspaceId, t0);
    expect((await take(a.workspaceId, t0)).ok).toBe(false);
    expect(await take(b.workspaceId, t0)).toEqual({ ok: true });
    await database.db.execute(sql`delete from workspaces where id = ${a.workspaceId}`);
    expect(await usedOf(a.workspaceId)).toEqual([]);
    expect(await usedOf(b.workspaceId)).toEqual([{ used: 1 }]);
  });

  it('counts concurrent requests of one workspace exactly: the burst, no more', async () => {
    const { workspaceId } = await createTenant(database.db);
    const t0 = Date.UTC(2026, 0, 4);
    const limits = { rate: 0.001, burst: 20, dailyQuota: 1_000 };
    const answers = await Promise.all(
      Array.from({ length: 60 }, () =>
        database.run((runner) => takeRequest(runner, workspaceId, limits, t0), { repeatable: false }),
      ),
    );
    expect(answers.filter((a) => a.ok)).toHaveLength(limits.burst);
  });
});
