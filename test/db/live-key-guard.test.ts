import { eq } from 'drizzle-orm';
import sql from 'sql-template-tag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '#contract/routes.ts';
import type { DatabaseHandle } from '#db/client.ts';
import type { Statement } from '#db/database.ts';
import { sqlState } from '#db/errors.ts';
import { KEY_NOT_LIVE, keyIsLive } from '#db/queries/api-keys.ts';
import { revokeApiKey } from '#db/queries/manage-api-keys.ts';
import { apiKeys } from '#db/schema/index.ts';
import { silentLogger } from '#functions/http/log.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { recordStatements } from '#test/helpers/recording-database.ts';
import {
  buildWorld,
  type RouteKey,
  type RouteRequest,
  routeKeys,
  routeRequests,
  toApiEvent,
  type World,
  withUnknownIds,
} from '#test/helpers/route-requests.ts';
import { createTenant } from '#test/helpers/tenants.ts';
import { buildApp, type RouteName } from '../hardening/support/app.ts';
import { handlerOf } from '../hardening/support/gateway-flow.ts';

interface PlanNode {
  'Node Type': string;
  'Parent Relationship'?: string;
  'One-Time Filter'?: string;
  'Actual Loops'?: number;
  Plans?: PlanNode[];
}

/**
 * The nodes that produce the statement's rows, from the top: each node's outer child, past CTEs
 * and subplans (which run only when read). A one-time filter on one of them runs before anything
 * else of the statement, whether or not any row is found.
 */
function mainPath(plan: PlanNode): PlanNode[] {
  const path: PlanNode[] = [];
  for (let node: PlanNode | undefined = plan; node; ) {
    path.push(node);
    node = node.Plans?.find((child) => child['Parent Relationship'] === 'Outer');
  }
  return path;
}

const guarding = (node: PlanNode) => /api_key_live\(/.test(node['One-Time Filter'] ?? '');

describe('the live-key guard', () => {
  let database: DatabaseHandle;

  beforeAll(async () => {
    database = await freshDatabase();
  });
  afterAll(async () => {
    await database?.close();
  });

  const guard = (keyId: string) =>
    database.sql.rows<{ live: boolean }>(sql`select ${keyIsLive(keyId)} as live`);
  const refusal = (keyId: string) => guard(keyId).then(() => 'allowed', sqlState);

  describe('api_key_live (migration 0006)', () => {
    it('is true for a live key, one that never expires or expires later', async () => {
      const never = await createTenant(database.db);
      const later = await createTenant(database.db, { expiresAt: new Date(Date.now() + 60_000) });
      expect(await guard(never.keyId)).toEqual([{ live: true }]);
      expect(await guard(later.keyId)).toEqual([{ live: true }]);
    });

    it(`fails with SQLSTATE ${KEY_NOT_LIVE} for a revoked, an expired or an unknown key`, async () => {
      const revoked = await createTenant(database.db);
      await revokeApiKey(database.db, revoked.keyId);
      const expired = await createTenant(database.db);
      await database.db
        .update(apiKeys)
        .set({ expiresAt: new Date(Date.now() - 1).toISOString() })
        .where(eq(apiKeys.id, expired.keyId));
      expect({
        revoked: await refusal(revoked.keyId),
        expired: await refusal(expired.keyId),
        unknown: await refusal('nokeyhasthisid'),
      }).toEqual({ revoked: KEY_NOT_LIVE, expired: KEY_NOT_LIVE, unknown: KEY_NOT_LIVE });
    });

    it('is not one of the codes the client reads as refused credentials (class 28)', () => {
      expect(KEY_NOT_LIVE).toMatch(/^[5-9I-Z][0-9A-Z]{4}$/);
      expect(KEY_NOT_LIVE.startsWith('28')).toBe(false);
    });
  });

  describe("in every route's first statement, a one-time filter on the plan's main path", () => {
    let world: World;
    let recorded: ReturnType<typeof recordStatements>;
    let app: ReturnType<typeof buildApp>;

    beforeAll(async () => {
      world = await buildWorld(database);
      recorded = recordStatements(database);
      app = buildApp({ database: recorded.client, logger: silentLogger });
    });

    /** The first statement the route's function runs for the request (it runs it, with a live key). */
    async function firstStatement(key: RouteKey, request: RouteRequest): Promise<Statement> {
      recorded.statements.length = 0;
      const result = await handlerOf(app, routes[key].name as RouteName)(toApiEvent(world, key, request));
      expect({ status: result.statusCode, body: result.body }).toMatchObject({ status: request.status });
      const [first] = recorded.statements;
      if (!first) throw new Error(`${key} ran no statement`);
      return first;
    }

    const explain = async (statement: Statement, analyze = false) => {
      const [row] = await database.sql.rows<{ 'QUERY PLAN': unknown }>(
        analyze ? sql`explain (analyze, format json) ${statement}` : sql`explain (format json) ${statement}`,
      );
      const plan = row?.['QUERY PLAN'];
      return ((typeof plan === 'string' ? JSON.parse(plan) : plan) as [{ Plan: PlanNode }])[0].Plan;
    };

    it.each(routeKeys)('%s', async (key) => {
      const statement = await firstStatement(key, await routeRequests[key](world));
      const path = mainPath(await explain(statement));
      expect(path.filter(guarding).map((node) => node['Node Type'])).toEqual(['Result']);
    });

    const reads = routeKeys.filter((key) => routes[key].method === 'GET' && routes[key].path.includes('{'));

    it.each(reads)('%s naming ids no row has: the filter runs though nothing is found', async (key) => {
      const request = withUnknownIds(key, await routeRequests[key](world));
      const statement = await firstStatement(key, { ...request, status: 404 });
      const [node] = mainPath(await explain(statement, true)).filter(guarding);
      expect(node?.['Actual Loops']).toBe(1);
    });
  });
});
