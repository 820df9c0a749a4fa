/**
 * Each workspace held to its tier (contract/tiers.ts): a token bucket (rate, burst) and a count of
 * today's requests (UTC), in its `workspace_limits` row, taken by one statement per route request.
 * A row, not a container's memory: a workspace's requests land on any container of any route's
 * function, and only a shared count gives it its tier's rate and quota (docs/decisions.md,
 * "Per-workspace limits").
 */
import sql from 'sql-template-tag';
import type { Tier } from '#contract/tiers.ts';
import type { SqlRunner } from '../database.ts';

export type Taken =
  | { ok: true }
  /** `quota`: today's requests are spent; else the bucket is empty. Retry after `retryAfter` seconds. */
  | { ok: false; quota: boolean; retryAfter: number };

const DAY_MS = 86_400_000;

/**
 * Takes one request from the workspace's bucket and today's count, at `now`: refills the tokens at
 * the tier's rate up to its burst, then spends one if there is one and the quota is not used up.
 * One statement: the upsert writes only when it takes (a refusal leaves the row as it was), and
 * concurrent takes of one workspace queue on its row, so none is counted twice or lost.
 */
export async function takeRequest(
  runner: SqlRunner,
  workspaceId: string,
  { rate, burst, dailyQuota }: Tier,
  now = Date.now(),
): Promise<Taken> {
  const at = new Date(now).toISOString();
  const day = at.slice(0, 10);
  // The tokens refilled at the tier's rate since the row's last refill, up to the burst, of `l`
  // (the row the upsert meets) and of `b` (the row as the statement leaves it).
  const refilledL = sql`least(${burst}::float8, l.tokens + greatest(0, extract(epoch from ${at}::timestamptz - l.refilled_at)) * ${rate}::float8)`;
  const refilledB = sql`least(${burst}::float8, b.tokens + greatest(0, extract(epoch from ${at}::timestamptz - b.refilled_at)) * ${rate}::float8)`;
  const [row] = await runner.rows<{ ok: boolean; spent: boolean | null; tokens: number | null }>(sql`
    with taken as (
      insert into workspace_limits as l (workspace_id, tokens, refilled_at, day, used)
      values (${workspaceId}, ${burst}::float8 - 1, ${at}::timestamptz, ${day}::date, 1)
      on conflict (workspace_id) do update set
        tokens = ${refilledL} - 1,
        refilled_at = greatest(l.refilled_at, excluded.refilled_at),
        day = excluded.day,
        used = case when l.day = excluded.day then l.used + 1 else 1 end
      where ${refilledL} >= 1 and (l.day <> excluded.day or l.used < ${dailyQuota}::int)
      returning 1
    )
    select exists (select from taken) as ok,
      -- This transaction alone commits without waiting for the WAL flush: a crash may lose the
      -- last moments' counts, never a request's answer.
      set_config('synchronous_commit', 'off', true) is not null as async,
      (select b.day = ${day}::date and b.used >= ${dailyQuota}::int from workspace_limits b
        where b.workspace_id = ${workspaceId}) as spent,
      (select ${refilledB} from workspace_limits b where b.workspace_id = ${workspaceId}) as tokens`);
  if (row?.ok) return { ok: true };
  if (row?.spent) {
    const midnight = (Math.floor(now / DAY_MS) + 1) * DAY_MS;
    return { ok: false, quota: true, retryAfter: Math.max(1, Math.ceil((midnight - now) / 1000)) };
  }
  const tokens = Number(row?.tokens ?? 0);
  return { ok: false, quota: false, retryAfter: Math.max(1, Math.ceil((1 - tokens) / rate)) };
}
