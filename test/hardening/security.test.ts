import { createHash } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { scopes as allScopes, routes, type Scope } from '#contract/routes.ts';
import type { Agent } from '#contract/schemas/agent.ts';
import { type DatabaseClient, type DatabaseHandle, openDatabase, type SqlRunner } from '#db/client.ts';
import { revokeApiKey } from '#db/queries/manage-api-keys.ts';
import { rowsOf } from '#db/queries/rows.ts';
import { apiKeys } from '#db/schema/index.ts';
import { silentLogger } from '#functions/http/log.ts';
import type { ApiEvent, ApiResult, AuthorizerResult } from '#functions/http/types.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { apiEvent, setHeader } from '#test/helpers/events.ts';
import { insertAgent, insertSession } from '#test/helpers/fixtures.ts';
import { authorizerContext, isAllowed } from '#test/helpers/policy.ts';
import {
  buildWorld,
  type RouteKey,
  routeKeys,
  routeRequests,
  toApiEvent,
  type World,
  withCaller,
} from '#test/helpers/route-requests.ts';
import { tableStates } from '#test/helpers/table-states.ts';
import { createTenant, type Tenant } from '#test/helpers/tenants.ts';
import { type App, buildApp, checkAnswer, type RouteName } from './support/app.ts';
import { BODY_PATHS } from './support/arbitraries.ts';
import { handlerOf, throughAuthorizer } from './support/gateway-flow.ts';

/**
 * A route of the route table with one valid request for `world` (test/helpers/route-requests.ts: a
 * change makes its own target, so the request is one that succeeds once allowed), as its function
 * receives it from `caller` (`null`: no authorizer context, no Authorization header).
 */
async function routeEvent(world: World, key: RouteKey) {
  const request = await routeRequests[key](world);
  const { name, scope } = routes[key];
  const as = (caller: Tenant | null) => toApiEvent(world, key, request, { caller });
  return { key, name: name as RouteName, scope, as, event: () => as(world.caller) };
}
/** Every route of the route table, each with its request for `world`. */
const everyRoute = (world: World) => Promise.all(routeKeys.map((key) => routeEvent(world, key)));

/** A key of the world's workspace, holding every scope, made no longer live. */
async function endedKey(handle: DatabaseHandle, world: World, kind: 'revoked' | 'expired') {
  const { caller } = await withCaller(world, allScopes);
  if (kind === 'revoked') await revokeApiKey(handle.db, caller.keyId);
  else
    await handle.db
      .update(apiKeys)
      .set({ expiresAt: new Date(Date.now() - 1_000).toISOString() })
      .where(eq(apiKeys.id, caller.keyId));
  return caller;
}

/** The request as the handler gets it when the authorizer could not reach the database. */
const deferred = (event: ApiEvent) => {
  event.requestContext.authorizer = authorizerContext({ deferred: 'database-unavailable' });
  return event;
};

/** Every subset of the scopes (2^n of them for n scopes). */
const scopeSets: Scope[][] = Array.from({ length: 2 ** allScopes.length }, (_, mask) =>
  allScopes.filter((_, i) => mask & (1 << i)),
);

describe('security', () => {
  let handle: DatabaseHandle;
  let app: App;
  /** Workspace A, where every route's request is made; `a` is its caller. */
  let world: World;
  let a: Tenant;
  let b: Tenant;
  let bIds: {
    agentId: string;
    versionId: string;
    sessionId: string;
    personId: string;
    conversationId: string;
  };
  let bSlug: string;
  /** A database nothing listens for: any statement is a 503, so a 4xx proves none was made. */
  let tripwire: DatabaseHandle;

  beforeAll(async () => {
    handle = await freshDatabase();
    app = buildApp({ database: handle, logger: silentLogger });
    world = await buildWorld(handle);
    a = world.caller;
    b = await createTenant(handle.db, { name: 'Workspace B' });
    const agent = await insertAgent(handle.db, b, { n: 1 });
    const session = await insertSession(handle.db, b, agent, { n: 1, ledger: true });
    bIds = { agentId: agent.agentId, ...session };
    const [row] = rowsOf<{ slug: string }>(
      await handle.db.execute(sql`select slug from agents where id = ${agent.agentId}`),
    );
    bSlug = row?.slug as string;
    tripwire = await openDatabase({ kind: 'postgres', url: 'postgres://nobody@127.0.0.1:1/none' });
  });
  afterAll(async () => {
    await tripwire?.close();
    await handle?.close();
  });

  describe('credentials at rest', () => {
    it('no table holds a token, its secret part or anything but its SHA-256, after every route ran', async () => {
      const own = await buildWorld(handle);
      const tenant = own.caller;
      for (const route of await everyRoute(own)) {
        await throughAuthorizer(app, route.name, route.event());
        await handlerOf(app, route.name)(deferred(route.event()));
      }
      const tables = rowsOf<{ table_name: string }>(
        await handle.db.execute(
          sql`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`,
        ),
      );
      expect(tables.length).toBeGreaterThan(8);
      let dump = '';
      for (const { table_name } of tables) {
        const rows = await handle.db.execute(sql`select * from ${sql.identifier(table_name)}`);
        dump += JSON.stringify(rowsOf(rows));
      }
      expect(dump).not.toContain(tenant.token);
      expect(dump).not.toContain(tenant.token.slice(4));
      expect(dump).toContain(createHash('sha256').update(tenant.token).digest('hex'));
    });
  });

  describe('revoked and expired keys', () => {
    it.each(['revoked', 'expired'] as const)(
      'a %s key is refused on every route, by the authorizer and by a handler authenticating a deferred request',
      async (kind) => {
        const tenant = await endedKey(handle, world, kind);
        const routes = await everyRoute(world);
        const before = await tableStates(handle.db);
        for (const route of routes) {
          const flow = await throughAuthorizer(app, route.name, route.as(tenant));
          expect(flow, route.key).toMatchObject({ kind: 'gateway', statusCode: 403 });
          const result = await handlerOf(app, route.name)(deferred(route.as(tenant)));
          expect(result.statusCode, route.key).toBe(403);
          checkAnswer(route.name, result);
        }
        expect(await tableStates(handle.db)).toEqual(before);
      },
    );

    it('a key that expires is refused from that moment on, without a restart', async () => {
      const tenant = await createTenant(handle.db, { expiresAt: new Date(Date.now() + 1_500) });
      const list = () => app.listAgents(deferred(apiEvent({ path: '/agents', caller: tenant })));
      expect((await list()).statusCode).toBe(200);
      await new Promise((done) => setTimeout(done, 1_600));
      expect((await list()).statusCode).toBe(403);
    });
  });

  describe('scopes', () => {
    /** What a refused request names does not matter: one request of each route serves every refusal. */
    let refusedAlike: Record<RouteKey, Awaited<ReturnType<typeof routeEvent>>>;
    beforeAll(async () => {
      const all = await everyRoute(world);
      refusedAlike = Object.fromEntries(all.map((route) => [route.key, route])) as typeof refusedAlike;
    });

    /**
     * Past the scope check a route reads its declared inputs: an unknown query parameter is then a
     * 400 naming it, before any statement. So a request carrying one shows where the gate stood
     * (403: refused by scope, 400: let through) without making a change.
     */
    const PROBE = 'scope-probe';
    const probed = (event: ApiEvent): ApiEvent => ({
      ...event,
      queryStringParameters: { ...event.queryStringParameters, [PROBE]: '1' },
      multiValueQueryStringParameters: { ...event.multiValueQueryStringParameters, [PROBE]: ['1'] },
    });
    /**
     * The route's answer to `caller` by both paths: through the authorizer (its decision cached per
     * key, as the stage caches it), and deferred.
     */
    const decisions = new Map<string, AuthorizerResult>();
    async function bothPaths(name: RouteName, one: ApiEvent, two: ApiEvent) {
      const flow = await throughAuthorizer(app, name, one, decisions);
      const viaDeferred = await handlerOf(app, name)(deferred(two));
      return [flow.kind === 'handler' ? flow.result : undefined, viaDeferred];
    }

    it.each(scopeSets.map((set) => [set.join(' ') || '(none)', set] as const))(
      'a key holding %s is let through by exactly the routes its scopes name, on every path',
      async (_, set) => {
        const { caller } = await withCaller(world, set);
        for (const key of routeKeys) {
          const { name, scope } = routes[key];
          const allowed = set.includes(scope);
          const event = probed(refusedAlike[key].as(caller));
          for (const result of await bothPaths(name as RouteName, event, structuredClone(event))) {
            expect(result, key).toBeDefined();
            const { status, problem } = checkAnswer(name as RouteName, result as ApiResult);
            expect(status, key).toBe(allowed ? 400 : 403);
            expect(problem?.detail, key).toContain(allowed ? PROBE : scope);
          }
        }
      },
    );

    // Let through, a request succeeds: with the route's own scope alone, and with every scope but
    // one other (every scope, where that other is the route's own).
    const successSets: Array<[string, (scope: Scope) => Scope[]]> = [
      ['its own scope alone', (scope) => [scope]],
      ...allScopes.map(
        (other) =>
          [
            `every scope but ${other}`,
            (scope: Scope) => allScopes.filter((s) => s === scope || s !== other),
          ] as [string, (scope: Scope) => Scope[]],
      ),
    ];
    it.each(successSets)(
      'a key holding %s gets a success from every route it names, on every path',
      async (_, setOf) => {
        for (const key of routeKeys) {
          const { name, scope } = routes[key];
          const scoped = await withCaller(world, setOf(scope));
          // A request for each path: the first change is made, the second needs its own target.
          const [one, two] = [await routeEvent(scoped, key), await routeEvent(scoped, key)];
          for (const result of await bothPaths(
            name as RouteName,
            one.as(scoped.caller),
            two.as(scoped.caller),
          )) {
            expect(result, key).toBeDefined();
            expect(checkAnswer(name as RouteName, result as ApiResult).status, key).toBeLessThan(300);
          }
        }
      },
    );

    it('scopes the route table does not know grant nothing', async () => {
      const { caller } = await withCaller(world, ['agents:*', 'admin', '*', 'AGENTS:READ'] as never);
      for (const route of await everyRoute(world)) {
        expect((await handlerOf(app, route.name)(deferred(route.as(caller)))).statusCode).toBe(403);
      }
    });
  });

  describe('workspace isolation', () => {
    const theirIds = () => [b.workspaceId, b.themeId, b.principalId, b.keyId, ...Object.values(bIds)];

    it('a create carrying the other workspace’s ids in any field lands in the caller’s workspace, or is refused', async () => {
      const stringPaths = BODY_PATHS.filter((p) =>
        ['name', 'description', 'systemPrompt', 'knowledgeBaseId', 'voiceId'].includes(p.at(-1) as string),
      );
      for (const id of theirIds()) {
        for (const path of stringPaths) {
          const body: Record<string, unknown> = {
            name: 'Isolated',
            version: { config: { tts: { provider: 'TTS_PROVIDER_1', model: 'TTS_MODEL_1A', voiceId: 'v' } } },
          };
          let target = body;
          for (const key of path.slice(0, -1)) target = target[key] as Record<string, unknown>;
          target[path.at(-1) as string] = id;
          const result = await app.createAgent(
            apiEvent({ method: 'POST', path: '/agents', body, caller: a }),
          );
          const agent = checkAnswer('create-agent', result).body as Agent;
          expect(result.statusCode).toBe(201);
          expect(agent.workspaceId).toBe(a.workspaceId);
          expect(agent.createdBy).toBe(a.principalId);
          expect(agent.version.themeId).toBe(a.themeId);
        }
      }
    });

    it.each(['workspaceId', 'id', 'themeId', 'createdBy', 'principalId', 'agentId', 'sourceTemplateId'])(
      'refuses %s in a create body, at the root and in version, naming it',
      async (field) => {
        for (const body of [
          { name: 'X', [field]: b.workspaceId },
          { name: 'X', version: { [field]: bIds.versionId } },
        ]) {
          const result = await app.createAgent(
            apiEvent({ method: 'POST', path: '/agents', body, caller: a }),
          );
          const { problem } = checkAnswer('create-agent', result);
          expect(result.statusCode).toBe(400);
          expect(problem?.errors?.map((e) => e.path)).toEqual([body.version ? `version.${field}` : field]);
        }
      },
    );

    it('ignores workspace headers a client adds, and gives the other workspace’s slug to the caller without a word about it', async () => {
      const result = await app.createAgent(
        apiEvent({
          method: 'POST',
          path: '/agents',
          body: { name: 'Same slug', slug: bSlug },
          caller: a,
          headers: { 'x-workspace-id': b.workspaceId, 'x-amz-workspace': b.workspaceId },
        }),
      );
      expect(result.statusCode).toBe(201);
      expect((checkAnswer('create-agent', result).body as Agent).workspaceId).toBe(a.workspaceId);
    });

    it('lists nothing of the other workspace whatever id, slug, name or cursor of theirs is passed', async () => {
      // A workspace of its own (the tests above stored B's ids as text in A's agents, as clients may).
      const a = await createTenant(handle.db, { name: 'Workspace C' });
      const mine = await insertAgent(handle.db, a, { n: 2 });
      await insertSession(handle.db, a, mine, { n: 2 });
      const theirCursor = /cursor=([^&>]+)/.exec(
        (await app.listSessions(apiEvent({ path: '/sessions', query: 'limit=1&cursor=', caller: b }))).headers
          .link ?? '',
      )?.[1];
      const queries: [RouteName, string][] = [
        ['list-sessions', `agentId=${bIds.agentId}`],
        ['list-sessions', `agentVersionId=${bIds.versionId}`],
        ['list-sessions', `personId=${bIds.personId}`],
        ['list-sessions', `conversationId=${bIds.conversationId}`],
        ['list-sessions', `agentId=${bIds.agentId}&personId=${bIds.personId}&includeTotal=true`],
        ['list-agents', `slug=${bSlug}`],
        ['list-agents', 'q=Agent'],
        ['list-agents', 'includeTotal=true'],
        ['list-sessions', `cursor=${theirCursor}`],
        ['list-sessions', `workspaceId=${b.workspaceId}`],
        ['list-agents', `workspaceId=${b.workspaceId}`],
      ];
      for (const [route, query] of queries) {
        const result = await handlerOf(
          app,
          route,
        )(apiEvent({ path: route === 'list-agents' ? '/agents' : '/sessions', query, caller: a }));
        checkAnswer(route, result);
        for (const id of theirIds()) expect(result.body).not.toContain(id);
        if (result.statusCode === 200) {
          const items = JSON.parse(result.body) as { workspaceId: string }[];
          for (const item of items) expect(item.workspaceId).toBe(a.workspaceId);
          // Filters on their rows match nothing here, and the total says so too.
          if (/Id=/.test(query) && route === 'list-sessions') expect(items).toEqual([]);
          if (result.headers['x-total-count'] !== undefined && /Id=/.test(query)) {
            expect(result.headers['x-total-count']).toBe('0');
          }
        }
      }
    });
  });

  describe('answers', () => {
    /** A database every statement of which fails with a driver-style error full of internals. */
    const failing = (message: string, code?: string): DatabaseClient => {
      const fail = () => Promise.reject(Object.assign(new Error(message), code ? { code } : {}));
      const sql: SqlRunner = { inTransaction: false, rows: fail, transaction: fail };
      return {
        config: handle.config,
        sql,
        driver: handle.driver,
        run: (work) => work(sql),
        close: async () => {},
      };
    };
    const internals: string[] = [
      'select * from api_keys where token_hash = $1 -- at Object.query (/var/task/index.mjs:1:1)',
      'relation "agents" violates constraint "agents_workspace_slug" (SQLSTATE 23505)',
      'connect ECONNREFUSED 10.0.0.12:5432 postgres.internal',
    ];

    it('carry no-store and nosniff on every status each route can give, and leak nothing', async () => {
      const seen = new Map<string, Set<number>>();
      const check = (route: RouteName, result: ApiResult, injected = false) => {
        expect(result.headers['cache-control']).toBe('no-store');
        expect(result.headers['x-content-type-options']).toBe('nosniff');
        expect(result.body).not.toContain(a.token);
        // An error names no key, principal or workspace id, and nothing of the failure's internals.
        if (result.statusCode >= 400) {
          for (const secret of [a.keyId, a.principalId, a.workspaceId, ...internals])
            expect(result.body).not.toContain(secret);
        }
        // An injected constraint error meets the safety net's generic 400 (it cannot know the field).
        if (injected && result.statusCode === 400)
          expect(result.headers['content-type']).toBe('application/problem+json');
        else if (result.statusCode !== 500) checkAnswer(route, result, { allow503: true });
        else {
          expect(result.headers['content-type']).toBe('application/problem+json');
          expect(JSON.parse(result.body)).toMatchObject({
            status: 500,
            detail: 'An unexpected error occurred; it has been logged.',
          });
        }
        seen.set(route, (seen.get(route) ?? new Set()).add(result.statusCode));
      };
      const idem = { 'idempotency-key': `k-${Date.now()}` };
      for (const route of await everyRoute(world)) {
        const handler = handlerOf(app, route.name);
        check(route.name, await handler(route.event()));
        check(route.name, await handler(route.as(null)));
        const noScope = route.event();
        noScope.requestContext.authorizer = { ...noScope.requestContext.authorizer, scopes: '' };
        check(route.name, await handler(noScope));
        for (const [message, code] of [
          [internals[0], undefined],
          [internals[1], '23505'],
          [internals[2], 'ECONNREFUSED'],
          [internals[1], '22001'],
        ] as [string, string | undefined][]) {
          const failed = failing(message, code);
          const app = buildApp({ database: failed, logger: silentLogger });
          check(route.name, await handlerOf(app, route.name)(route.event()), true);
        }
        check(
          route.name,
          await handlerOf(
            buildApp({ database: tripwire, logger: silentLogger }),
            route.name,
          )(deferred(route.event())),
        );
      }
      const post = (body: unknown, headers: Record<string, string> = {}, rawBody?: string) =>
        app.createAgent(apiEvent({ method: 'POST', path: '/agents', body, rawBody, headers, caller: a }));
      check('create-agent', await post({ name: 'Dup', slug: 'dup-slug' }));
      check('create-agent', await post({ name: 'Dup', slug: 'dup-slug' }));
      check('create-agent', await post({ name: 'Idem' }, idem));
      check('create-agent', await post({ name: 'Idem' }, idem));
      check('create-agent', await post({ name: 'Other' }, idem));
      check('create-agent', await post(undefined, {}, `"${'x'.repeat(300_000)}"`));
      check('create-agent', await post({ name: 'A' }, { 'content-type': 'text/plain' }));
      check('create-agent', await post({ name: '' }));
      check('list-agents', await app.listAgents(apiEvent({ path: '/agents', query: 'limit=1', caller: a })));
      expect([...(seen.get('create-agent') ?? [])].sort()).toEqual([
        201, 400, 401, 403, 409, 413, 415, 422, 500, 503,
      ]);
      expect([...(seen.get('list-sessions') ?? [])].sort()).toEqual([200, 400, 401, 403, 409, 500, 503]);
    });
  });

  describe('size limits, enforced before any parsing or database work', () => {
    const viaTripwire = () => buildApp({ database: tripwire, logger: silentLogger });

    it('refuses a body over 256 KiB with 413 without parsing it, counted in bytes, base64 or not', async () => {
      const parse = vi.spyOn(JSON, 'parse');
      try {
        const huge = `{"name":"${'😀'.repeat(70_000)}"}`; // 140k UTF-16 units, 280 KB of UTF-8
        const cases: ApiEvent[] = [
          apiEvent({
            method: 'POST',
            path: '/agents',
            rawBody: `{"name":"${'x'.repeat(10 * 1024 * 1024)}"}`,
            caller: a,
          }),
          apiEvent({ method: 'POST', path: '/agents', rawBody: huge, caller: a }),
          Object.assign(apiEvent({ method: 'POST', path: '/agents', caller: a }), {
            body: Buffer.from(`{"name":"${'x'.repeat(300_000)}"}`).toString('base64'),
            isBase64Encoded: true,
            headers: { 'content-type': 'application/json', authorization: `Bearer ${a.token}` },
          }),
        ];
        for (const event of cases) {
          parse.mockClear();
          const result = await viaTripwire().createAgent(event);
          expect(result.statusCode).toBe(413);
          expect(parse).not.toHaveBeenCalled();
        }
      } finally {
        parse.mockRestore();
      }
    });

    it('takes a body of exactly 256 KiB to validation, not to 413', async () => {
      const body = `{"name":"${'x'.repeat(256 * 1024 - 11)}"}`;
      expect(Buffer.byteLength(body)).toBe(256 * 1024);
      const result = await viaTripwire().createAgent(
        apiEvent({ method: 'POST', path: '/agents', rawBody: body, caller: a }),
      );
      expect(result.statusCode).toBe(400);
    });

    it.each([
      ['an Idempotency-Key of 1 MB', { 'idempotency-key': 'k'.repeat(1024 * 1024) }, 400],
      ['a Content-Type of 1 MB', { 'content-type': `application/${'x'.repeat(1024 * 1024)}` }, 415],
    ])('refuses %s before touching the database', async (_, headers, status) => {
      const result = await viaTripwire().createAgent(
        apiEvent({ method: 'POST', path: '/agents', body: { name: 'A' }, headers, caller: a }),
      );
      expect(result.statusCode).toBe(status);
      checkAnswer('create-agent', result);
    });

    it('refuses an Authorization header of 1 MB without looking it up (403 as the deny, not a database call)', async () => {
      const header = `Bearer vak_${'A'.repeat(1024 * 1024)}`;
      for (const route of await everyRoute(world)) {
        const event = setHeader(deferred(route.as(null)), 'authorization', header);
        const result = await handlerOf(viaTripwire(), route.name)(event);
        expect(result.statusCode).toBe(403);
      }
      const decision = await viaTripwire().authorize({
        methodArn: 'arn:aws:execute-api:eu-west-1:000000000000:api/v1/GET/agents',
        headers: { authorization: header },
        requestContext: {},
      } as never);
      expect(isAllowed(decision)).toBe(false);
    });

    it('refuses a query string of 1 MB with a 400 naming its parameters, before any database work', async () => {
      const query = `limit=${'9'.repeat(1024 * 1024)}&${'x'.repeat(1024)}=1`;
      for (const route of ['list-agents', 'list-sessions'] as const) {
        const result = await handlerOf(
          viaTripwire(),
          route,
        )(apiEvent({ path: route === 'list-agents' ? '/agents' : '/sessions', query, caller: a }));
        expect(result.statusCode).toBe(400);
        checkAnswer(route, result);
      }
    });
  });
});
