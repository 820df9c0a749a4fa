import sql from 'sql-template-tag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '#db/client.ts';
import type { SqlRunner, Statement } from '#db/database.ts';
import { claimDue } from '#db/queries/webhook-deliveries.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { createTenant } from '#test/helpers/tenants.ts';

interface PlanNode {
  'Relation Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  Plans?: PlanNode[];
}

const BACKLOG = 3_000;
const PER_ENDPOINT = 10;

/**
 * The worker's claim against a backlog: it reads each endpoint's next deliveries up to the
 * endpoint's in-flight bound from its index, never every queued delivery, so draining a backlog
 * does not slow each claim down (docs/performance.md, "Webhooks"). Judged by the rows the plan
 * reads, which do not move with the machine.
 */
describe('claiming due webhook deliveries', () => {
  let handle: DatabaseHandle;
  const endpoints = ['wclaimbusy0000000000000', 'wclaimquiet000000000000'];

  beforeAll(async () => {
    handle = await freshDatabase();
    const { workspaceId } = await createTenant(handle.db, { name: 'claims' });
    await handle.sql.rows(sql`
      insert into webhook_endpoints (id, workspace_id, url, enabled_events, secret_sealed)
      values (${endpoints[0]}, ${workspaceId}, 'https://hooks.example.com/in', '{agent.created}', 'sealed'),
        (${endpoints[1]}, ${workspaceId}, 'https://hooks.example.com/in', '{agent.created}', 'sealed')`);
    // One statement queues them all: one `next_attempt_at`, as a recovery or a burst of events does.
    await handle.sql.rows(sql`
      insert into webhook_deliveries (id, workspace_id, endpoint_id, event_id, event_seq, event_type,
        kind, payload, next_attempt_at)
      select 'wclaim' || n, ${workspaceId}, case when n % 100 = 0 then ${endpoints[1]} else ${endpoints[0]} end,
        gen_random_uuid(), n, 'agent.created', 'event', '{}', now() - interval '1 minute'
      from generate_series(1, ${BACKLOG}::int) n`);
    await handle.sql.rows(sql`analyze webhook_deliveries`);
    await handle.sql.rows(sql`analyze webhook_endpoints`);
  });
  afterAll(async () => {
    await handle?.close();
  });

  /** Runs the claim under EXPLAIN ANALYZE (it claims as it would): the rows each table's scans read. */
  async function claimExplained(limit: number) {
    let plan: PlanNode | undefined;
    const explaining: SqlRunner = {
      inTransaction: false,
      transaction: (work) => work(explaining),
      rows: async <T>(statement: Statement) => {
        const [row] = await handle.sql.rows<{ 'QUERY PLAN': unknown }>(
          sql`explain (analyze, format json) ${statement}`,
        );
        const json = row?.['QUERY PLAN'];
        plan = ((typeof json === 'string' ? JSON.parse(json) : json) as [{ Plan: PlanNode }])[0].Plan;
        return [] as T[];
      },
    };
    await claimDue(explaining, limit, PER_ENDPOINT, 30_000);
    const read: Record<string, number> = {};
    const walk = (node: PlanNode) => {
      const table = node['Relation Name'];
      if (table) read[table] = (read[table] ?? 0) + node['Actual Rows'] * node['Actual Loops'];
      for (const child of node.Plans ?? []) walk(child);
    };
    if (plan) walk(plan);
    return read;
  }

  const leased = async () => {
    const [row] = await handle.sql.rows<{ busy: number; quiet: number }>(sql`
      select count(*) filter (where endpoint_id = ${endpoints[0]})::int as busy,
        count(*) filter (where endpoint_id = ${endpoints[1]})::int as quiet
      from webhook_deliveries where locked_until > now()`);
    return row;
  };

  it('takes each endpoint’s oldest up to its bound, reading about that many rows of the backlog', async () => {
    const first = await claimExplained(50);
    expect(await leased()).toEqual({ busy: PER_ENDPOINT, quiet: PER_ENDPOINT });
    // Scanning the queue would read all 3,000; the index stops at each endpoint's bound.
    expect(first.webhook_deliveries).toBeLessThanOrEqual(10 * PER_ENDPOINT);

    // Both endpoints at their bound: another claim takes nothing and still reads only their heads.
    const full = await claimExplained(50);
    expect(await leased()).toEqual({ busy: PER_ENDPOINT, quiet: PER_ENDPOINT });
    expect(full.webhook_deliveries).toBeLessThanOrEqual(10 * PER_ENDPOINT);
  });
});
