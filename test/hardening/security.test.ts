import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { scopes as allScopes, type Scope } from '#contract/routes.ts';
import type { Agent } from '#contract/schemas/agent.ts';
import { type DatabaseClient, type DatabaseHandle, openDatabase, type SqlRunner } from '#db/client.ts';
import { revokeApiKey } from '#db/queries/manage-api-keys.ts';
import { rowsOf } from '#db/queries/rows.ts';
import { silentLogger } from '#functions/http/log.ts';
import type { ApiEvent, ApiResult } from '#functions/http/types.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { apiEvent } from '#test/helpers/events.ts';
import { insertAgent, insertSession } from '#test/helpers/fixtures.ts';
import { authorizerContext, isAllowed } from '#test/helpers/policy.ts';
import { createTenant, type Tenant } from '#test/helpers/tenants.ts';
import { type App, buildApp, checkAnswer, type RouteName, rowCounts } from './support/app.ts';
import { BODY_PATHS } from './support/arbitraries.ts';
import { handlerOf, throughAuthorizer } from './support/gateway-flow.ts';

const routes: { name: RouteName; scope: Scope; event: (caller: Tenant | null) => ApiEvent }[] = [
  {
    name: 'create-agent',
    scope: 'agents:write',
    event: (caller) => apiEvent({ method: 'POST', path: '/agents', body: { name: 'Secure' }, caller }),
  },
  { name: 'list-agents', scope: 'agents:read', event: (caller) => apiEvent({ path: '/agents', caller }) },
  {
    name: 'list-sessions',
    scope: 'sessions:read',
    event: (caller) => apiEvent({ path: '/sessions', caller }),
  },
  ...agentRoutes(),
];

/** Each workspace's agent the changes below act on (`withAgent`); unknown ones name a made-up id. */
const agentOf = new Map<string, { agentId: string; versionId: string }>();
const ownAgent = (caller: Tenant | null) =>
  agentOf.get(caller?.workspaceId ?? '') ?? {
    agentId: 'zzzzzzzzzzzzzzzzzzzzzzzz',
    versionId: 'zzzzzzzzzzzz',
  };
async function withAgent(handle: DatabaseHandle, tenant: Tenant) {
  const { agentId, versionIds } = await insertAgent(handle.db, tenant, { n: 9 });
  agentOf.set(tenant.workspaceId, { agentId, versionId: versionIds[0] as string });
}

/** The changes to an agent and its history, each of which a second run repeats harmlessly. */
function agentRoutes(): typeof routes {
  const on = (method: 'GET' | 'POST' | 'PATCH', suffix: string, body?: unknown) => (caller: Tenant | null) =>
    apiEvent({
      method,
      path: `/agents/${ownAgent(caller).agentId}${suffix}`,
      resource: `/agents/{agentId}${suffix}`,
      body: typeof body === 'function' ? body(caller) : body,
      headers: { 'if-match': '*' },
      caller,
    });
  return [
    { name: 'create-version', scope: 'agents:write', event: on('POST', '/versions', {}) },
    { name: 'update-agent', scope: 'agents:write', event: on('PATCH', '', { name: 'Renamed' }) },
    {
      name: 'publish-agent',
      scope: 'agents:publish',
      event: on('POST', '/publish', (caller: Tenant | null) => ({ versionId: ownAgent(caller).versionId })),
    },
    { name: 'agent-history', scope: 'agents:read', event: on('GET', '/history') },
    { name: 'archive-agent', scope: 'agents:publish', event: on('POST', '/archive') },
    { name: 'unarchive-agent', scope: 'agents:publish', event: on('POST', '/unarchive') },
  ];
}

/** The request as the handler gets it when the authorizer could not reach the database. */
const deferred = (event: ApiEvent) => {
  event.requestContext.authorizer = authorizerContext({ deferred: 'database-unavailable' });
  return event;
};

/** Every subset of the scopes (2^4 of them). */
const scopeSets: Scope[][] = Array.from({ length: 2 ** allScopes.length }, (_, mask) =>
  allScopes.filter((_, i) => mask & (1 << i)),
);

describe('security', () => {
  let handle: DatabaseHandle;
  let app: App;
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
    a = await createTenant(handle.db, { name: 'Workspace A' });
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
      const tenant = await createTenant(handle.db);
      await withAgent(handle, tenant);
      for (const route of routes) {
        await throughAuthorizer(app, route.name, route.event(tenant));
        await handlerOf(app, route.name)(deferred(route.event(tenant)));
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
        const tenant = await createTenant(handle.db, {
          expiresAt: kind === 'expired' ? new Date(Date.now() - 1) : undefined,
        });
        if (kind === 'revoked') await revokeApiKey(handle.db, tenant.keyId);
        const before = await rowCounts(handle.db);
        for (const route of routes) {
          const flow = await throughAuthorizer(app, route.name, route.event(tenant));
          expect(flow).toMatchObject({ kind: 'gateway', statusCode: 403 });
          const result = await handlerOf(app, route.name)(deferred(route.event(tenant)));
          expect(result.statusCode).toBe(401);
          checkAnswer(route.name, result);
        }
        expect((await rowCounts(handle.db)).agents).toBe(before.agents);
      },
    );

    it('a key that expires is refused from that moment on, without a restart', async () => {
      const tenant = await createTenant(handle.db, { expiresAt: new Date(Date.now() + 1_500) });
      const list = () => app.listAgents(deferred(apiEvent({ path: '/agents', caller: tenant })));
      expect((await list()).statusCode).toBe(200);
      await new Promise((done) => setTimeout(done, 1_600));
      expect((await list()).statusCode).toBe(401);
    });
  });

  describe('scopes', () => {
    it.each(scopeSets.map((set) => [set.join(' ') || '(none)', set] as const))(
      'a key holding %s gets exactly the routes its scopes name, on every path',
      async (_, set) => {
        const tenant = await createTenant(handle.db, { scopes: set });
        await withAgent(handle, tenant);
        for (const route of routes) {
          const allowed = set.includes(route.scope);
          const flow = await throughAuthorizer(app, route.name, route.event(tenant));
          const viaDeferred = await handlerOf(app, route.name)(deferred(route.event(tenant)));
          for (const result of [flow.kind === 'handler' ? flow.result : undefined, viaDeferred]) {
            expect(result, route.name).toBeDefined();
            const { status, problem } = checkAnswer(route.name, result as ApiResult);
            if (allowed) expect(status).toBeLessThan(300);
            else {
              expect(status).toBe(403);
              expect(problem?.detail).toContain(route.scope);
            }
          }
        }
      },
    );

    it('scopes the route table does not know grant nothing', async () => {
      const tenant = await createTenant(handle.db, {
        scopes: ['agents:*', 'admin', '*', 'AGENTS:READ'] as never,
      });
      for (const route of routes) {
        expect((await handlerOf(app, route.name)(deferred(route.event(tenant)))).statusCode).toBe(403);
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
      for (const route of routes) {
        const handler = handlerOf(app, route.name);
        check(route.name, await handler(route.event(a)));
        check(route.name, await handler(route.event(null)));
        const noScope = route.event(a);
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
          check(route.name, await handlerOf(app, route.name)(route.event(a)), true);
        }
        check(
          route.name,
          await handlerOf(
            buildApp({ database: tripwire, logger: silentLogger }),
            route.name,
          )(deferred(route.event(a))),
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

    it('refuses an Authorization header of 1 MB without looking it up (401, not a database call)', async () => {
      const header = `Bearer vak_${'A'.repeat(1024 * 1024)}`;
      for (const route of routes) {
        const event = deferred(route.event(null));
        event.headers.authorization = header;
        const result = await handlerOf(viaTripwire(), route.name)(event);
        expect(result.statusCode).toBe(401);
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
