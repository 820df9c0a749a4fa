import { createId } from '@paralleldrive/cuid2';
import { eq } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes, scopes } from '#contract/routes.ts';
import { pathParamNames } from '#contract/schemas/path.ts';
import { usageIdentifierOf } from '#contract/tiers.ts';
import type { DatabaseHandle } from '#db/client.ts';
import { generateToken } from '#db/queries/api-keys.ts';
import { revokeApiKey } from '#db/queries/manage-api-keys.ts';
import { apiKeys } from '#db/schema/index.ts';
import { silentLogger } from '#functions/http/log.ts';
import type { ApiEvent, ApiResult } from '#functions/http/types.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { apiEvent, setHeader } from '#test/helpers/events.ts';
import { authorizerContext, isAllowed } from '#test/helpers/policy.ts';
import {
  buildWorld,
  idsOf,
  pathValueOf,
  type RouteKey,
  type RouteRequest,
  routeKeys,
  routeRequests,
  toApiEvent,
  type World,
  withCaller,
  withNewIdempotencyKey,
  withPathValues,
} from '#test/helpers/route-requests.ts';
import { expectNothingWritten, tableStates } from '#test/helpers/table-states.ts';
import { createTenant, type Tenant } from '#test/helpers/tenants.ts';
import {
  type App,
  buildApp,
  checkAnswer,
  fuzzSeed,
  type RouteName,
  routeSeed,
  rowCounts,
  runs,
  Tally,
} from './support/app.ts';
import { anyText } from './support/arbitraries.ts';
import { authorizerEventFor, handlerOf, throughAuthorizer } from './support/gateway-flow.ts';

/** What a token may be turned into: every one but the untouched token must be refused. */
const damaged = (token: string) =>
  fc.oneof(
    fc
      .nat({ max: token.length - 1 })
      .map((i) => `${token.slice(0, i)}${token[i] === 'A' ? 'B' : 'A'}${token.slice(i + 1)}`),
    fc.nat({ max: token.length - 1 }).map((i) => token.slice(0, i)),
    fc.string({ minLength: 1, maxLength: 3 }).map((s) => `${token}${s}`),
    fc.constant(token.toUpperCase()),
    fc.constant(token.replace('vak_', 'VAK_')),
    fc.constant(token.slice(4)),
    fc.constant(`vak_${'A'.repeat(43)}`),
    fc.constant(generateToken()),
  );

describe('fuzzing the Authorization header', () => {
  let handle: DatabaseHandle;
  let app: App;
  let live: Tenant;
  let other: Tenant;
  let revoked: Tenant;
  let expired: Tenant;
  const tallies: Tally[] = [];

  beforeAll(async () => {
    handle = await freshDatabase();
    app = buildApp({ database: handle, logger: silentLogger });
    live = await createTenant(handle.db);
    other = await createTenant(handle.db);
    revoked = await createTenant(handle.db);
    await revokeApiKey(handle.db, revoked.keyId);
    expired = await createTenant(handle.db, { expiresAt: new Date(Date.now() - 1_000) });
  });
  afterAll(async () => {
    for (const tally of tallies) tally.report();
    await handle?.close();
  });

  /** A header and the tenant it must authenticate as, if any. */
  const header = () => {
    const scheme = fc.constantFrom('Bearer', 'bearer', 'BEARER', 'BeArEr');
    const spaces = fc.constantFrom(' ', '  ', '   ');
    const liveForm = fc
      .tuple(scheme, spaces, fc.constantFrom(live, other), fc.constantFrom('', ' ', '  '))
      .map(([s, sp, tenant, trail]) => ({
        value: `${s}${sp}${tenant.token}${trail}`,
        as: tenant as Tenant | undefined,
      }));
    const refused = fc
      .oneof(
        fc.constantFrom(revoked.token, expired.token).map((t) => `Bearer ${t}`),
        damaged(live.token).map((t) => `Bearer ${t}`),
        fc.constantFrom(
          live.token,
          `Bearer\t${live.token}`,
          ` Bearer ${live.token}`,
          `Bearer ${live.token},Bearer ${other.token}`,
          `Bearer ${live.token} ${other.token}`,
          `Basic ${Buffer.from(`x:${live.token}`).toString('base64')}`,
          `Token ${live.token}`,
          `Bearer`,
          `Bearer `,
          '',
          `Bearer ${live.token}\u0000`,
          `Bearer ${'vak_'.padEnd(200_000, 'A')}`,
        ),
        anyText,
        anyText.map((t) => `Bearer ${t}`),
      )
      .map((value) => ({ value, as: undefined as Tenant | undefined }));
    return fc.oneof({ weight: 1, arbitrary: liveForm }, { weight: 3, arbitrary: refused });
  };

  it('the authorizer allows exactly the live tokens, as their own workspace, and never throws', async () => {
    const seen = new Tally('authorizer, Authorization headers');
    tallies.push(seen);
    await fc.assert(
      fc.asyncProperty(header(), async ({ value, as }) => {
        const event = apiEvent({ path: '/agents', caller: null, headers: { authorization: value } });
        const decision = await app.authorize(authorizerEventFor(event));
        seen.record(isAllowed(decision) ? 200 : 403, value);
        expect(isAllowed(decision)).toBe(as !== undefined);
        if (as) {
          expect(decision.context).toEqual({
            workspaceId: as.workspaceId,
            principalId: as.principalId,
            keyId: as.keyId,
            scopes: scopes.join(' '),
            tier: 'standard',
            usageIdentifierKey: usageIdentifierOf('local', as.workspaceId, 'standard'),
          });
        } else {
          expect(decision.context).toEqual({});
        }
      }),
      { numRuns: runs(400), seed: fuzzSeed },
    );
  });

  it('a handler authenticating a deferred request itself agrees with the authorizer: 403 invalid-key unless live (401 for an empty header, which API Gateway answers itself)', async () => {
    const seen = new Tally('deferred handlers, Authorization headers');
    tallies.push(seen);
    const before = await rowCounts(handle.db);
    let created = 0;
    await fc.assert(
      fc.asyncProperty(
        header(),
        fc.constantFrom<RouteName>('create-agent', 'list-agents', 'list-sessions'),
        async ({ value, as }, route) => {
          const event =
            route === 'create-agent'
              ? apiEvent({ method: 'POST', path: '/agents', body: { name: 'Deferred' }, caller: null })
              : apiEvent({ path: route === 'list-agents' ? '/agents' : '/sessions', caller: null });
          event.headers.authorization = value;
          event.requestContext.authorizer = authorizerContext({ deferred: 'database-unavailable' });
          const result = await handlerOf(app, route)(event);
          seen.record(result.statusCode, value);
          const answer = checkAnswer(route, result);
          if (!as) {
            // What API Gateway answers without the database: 401 for an empty header, the deny's 403.
            expect(result.statusCode).toBe(value === '' ? 401 : 403);
            if (value !== '') expect((answer.body as { type: string }).type).toMatch(/\/invalid-key$/);
            return;
          }
          expect(result.statusCode).toBe(route === 'create-agent' ? 201 : 200);
          if (route === 'create-agent') {
            created++;
            expect((answer.body as { workspaceId: string }).workspaceId).toBe(as.workspaceId);
          }
        },
      ),
      { numRuns: runs(300), seed: fuzzSeed },
    );
    const after = await rowCounts(handle.db);
    expect(after.agents - before.agents).toBe(created);
  });

  it('through authorizer and handler, a refused header never reaches the handler and a live one acts as its own workspace', async () => {
    const seen = new Tally('authorizer then handler, Authorization headers');
    tallies.push(seen);
    await fc.assert(
      fc.asyncProperty(header(), async ({ value, as }) => {
        const event = apiEvent({
          path: '/agents',
          query: 'limit=250',
          caller: null,
          headers: { authorization: value },
        });
        const answer = await throughAuthorizer(app, 'list-agents', event);
        if (answer.kind === 'gateway') {
          seen.record(answer.statusCode, value);
          expect(as).toBeUndefined();
          expect(answer.statusCode).toBe(value === '' ? 401 : 403);
          return;
        }
        seen.record(answer.result.statusCode, value);
        expect(as).toBeDefined();
        const agents = checkAnswer('list-agents', answer.result).body as { workspaceId: string }[];
        for (const agent of agents) expect(agent.workspaceId).toBe(as?.workspaceId);
      }),
      { numRuns: runs(200), seed: fuzzSeed },
    );
  });
});

/**
 * Every route of the route table (one valid request of each, test/helpers/route-requests.ts), so a
 * route added without its request there fails `tsc` before it could escape these properties.
 */
describe('every route, whoever calls', () => {
  let handle: DatabaseHandle;
  let app: App;
  /** The workspace whose rows the requests name. */
  let world: World;
  /** Another workspace, with a live key holding every scope. */
  let stranger: World;
  let revoked: Tenant;
  let expired: Tenant;
  const refusals = new Tally('every route, refused tokens');
  const strangers = new Tally("every route, another workspace's key");
  const withoutScope = new Tally("every route, scopes without the route's");

  beforeAll(async () => {
    handle = await freshDatabase();
    app = buildApp({ database: handle, logger: silentLogger });
    world = await buildWorld(handle);
    stranger = await buildWorld(handle);
    // Keys of the very workspace the requests are for, no longer live.
    revoked = (await withCaller(world, scopes)).caller;
    await revokeApiKey(handle.db, revoked.keyId);
    expired = (await withCaller(world, scopes)).caller;
    await handle.db
      .update(apiKeys)
      .set({ expiresAt: new Date(Date.now() - 1_000).toISOString() })
      .where(eq(apiKeys.id, expired.keyId));
  });
  afterAll(async () => {
    for (const tally of [refusals, strangers, withoutScope]) tally.report();
    await handle?.close();
  });
  const nameOf = (key: RouteKey): RouteName => routes[key].name;

  /** The route's request with `authorization` as its only credential (none when empty). */
  const withAuthorization = (event: ApiEvent, value: string) =>
    setHeader(event, 'authorization', value === '' ? undefined : value);
  const deferred = (event: ApiEvent) => {
    event.requestContext.authorizer = authorizerContext({ deferred: 'database-unavailable' });
    return event;
  };

  it.each(routeKeys)(
    '%s: a damaged, unknown, revoked or expired token is refused by the authorizer and by a handler authenticating it, writing nothing',
    async (key) => {
      const request = await routeRequests[key](world);
      const token = world.caller.token;
      const refusedHeader = fc.oneof(
        fc.constantFrom(revoked.token, expired.token).map((t) => `Bearer ${t}`),
        damaged(token).map((t) => `Bearer ${t}`),
        fc.constantFrom(token, `Token ${token}`, `Bearer ${token} ${stranger.caller.token}`, 'Bearer', ''),
        anyText.map((t) => `Bearer ${t}`),
      );
      const before = await tableStates(handle.db);
      await fc.assert(
        fc.asyncProperty(refusedHeader, async (value) => {
          const event = () => withAuthorization(toApiEvent(world, key, request), value);
          const flow = await throughAuthorizer(app, nameOf(key), event());
          refusals.record(flow.kind === 'gateway' ? flow.statusCode : flow.result.statusCode, value);
          expect(flow).toMatchObject({ kind: 'gateway', statusCode: value === '' ? 401 : 403 });
          const result = await app[key](deferred(event()));
          checkAnswer(nameOf(key), result);
          // The handler answers as the gateway did: the deny's 403, or 401 for an empty header.
          expect(result.statusCode).toBe(value === '' ? 401 : 403);
          if (value === '') expect(result.headers['www-authenticate']).toBe('Bearer');
        }),
        { numRuns: runs(25), seed: routeSeed(key) },
      );
      expect(await tableStates(handle.db)).toEqual(before);
    },
  );

  it.each(routeKeys)(
    '%s: a live key of another workspace is answered as for ids no row has (404 for a path resource), sees none of the first workspace’s ids and changes none of its rows',
    async (key) => {
      const request = await routeRequests[key](world);
      // The world's ids, and those its fixture made for this request (a new agent, its version…).
      const theirIds = [...new Set([...idsOf(world), ...cuidsIn(request)])];
      const params = pathParamNames(routes[key].path);
      // Each path parameter: one of the first workspace's ids (of any kind), or an id no row has.
      const placed = fc.tuple(
        ...params.map(() => fc.option(fc.constantFrom(...theirIds), { nil: undefined })),
      );
      const mine = await tableStates(handle.db, { workspaceId: world.caller.workspaceId });
      await fc.assert(
        fc.asyncProperty(placed, async (ids) => {
          const fresh = new Map(theirIds.map((id) => [id, createId()]));
          const sent = withNewIdempotencyKey(
            params.length
              ? withPathValues(key, request, (name) => ids[params.indexOf(name)] ?? createId())
              : request,
          );
          const before = await tableStates(handle.db);
          const answer = await asStranger(key, sent);
          strangers.record(answer.statusCode, [key, ...ids]);
          const { status, problem } = checkAnswer(nameOf(key), answer);
          for (const id of theirIds) expect(answer.body).not.toContain(id);
          if (params.length) expect(status).toBe(404);
          if (status >= 400)
            await expectNothingWritten(handle.db, before, {
              status,
              idempotencyKey: sent.headers?.['idempotency-key'],
            });
          // The same request naming, in place of theirs, ids that nothing has: the same answer.
          const control = await asStranger(key, unknownInstead(sent, fresh));
          expect(control.statusCode).toBe(status);
          if (problem) expect(withoutRequestId(control.body)).toEqual(withoutRequestId(answer.body));
        }),
        // The request as made for the first workspace, its own ids in place, is always one case
        // (the only one for a route without path parameters).
        {
          numRuns: params.length ? runs(10) : 1,
          seed: routeSeed(key),
          examples: [[params.map((name) => pathValueOf(key, request, name))]],
        },
      );
      expect(await tableStates(handle.db, { workspaceId: world.caller.workspaceId })).toEqual(mine);
    },
  );

  it.each(routeKeys)(
    '%s: a key without the route’s scope gets 403 naming it, by the authorizer’s context and by a handler authenticating it, writing nothing',
    async (key) => {
      const { scope } = routes[key];
      const others = scopes.filter((s) => s !== scope);
      const request = await routeRequests[key](world);
      const scopeless = await withCaller(world, others);
      const before = await tableStates(handle.db);
      const expectRefused = (result: ApiResult) => {
        const { problem } = checkAnswer(nameOf(key), result);
        withoutScope.record(result.statusCode, scope);
        expect(result.statusCode).toBe(403);
        expect(problem?.type).toBe('https://voice-agent-admin.dev/problems/insufficient-scope');
        expect(problem?.detail).toContain(scope);
        expect(result.headers['www-authenticate']).toBe(
          `Bearer error="insufficient_scope", scope="${scope}"`,
        );
      };
      // The key as stored: the authorizer reads its scopes, then the handler refuses it.
      const flow = await throughAuthorizer(app, nameOf(key), toApiEvent(scopeless, key, request));
      expect(flow.kind).toBe('handler');
      if (flow.kind === 'handler') expectRefused(flow.result);
      expectRefused(await app[key](deferred(toApiEvent(scopeless, key, request))));
      // Any set of the other scopes, as the authorizer's (cached) context carries them.
      await fc.assert(
        fc.asyncProperty(fc.subarray(others), async (held) => {
          expectRefused(await app[key](toApiEvent(world, key, request, { scopes: held })));
        }),
        { numRuns: runs(10), seed: routeSeed(key) },
      );
      expect(await tableStates(handle.db)).toEqual(before);
    },
  );

  /** The request sent with the other workspace's key, through authorizer and handler. */
  async function asStranger(key: RouteKey, request: RouteRequest): Promise<ApiResult> {
    const flow = await throughAuthorizer(app, nameOf(key), toApiEvent(stranger, key, request));
    if (flow.kind === 'gateway') throw new Error(`the authorizer refused a live key: ${flow.statusCode}`);
    return flow.result;
  }
});

/** The request with each of `ids` replaced wherever it is (path, headers, body), under a new Idempotency-Key. */
function unknownInstead(request: RouteRequest, ids: Map<string, string>): RouteRequest {
  let text = JSON.stringify(request);
  for (const [id, fresh] of ids) text = text.replaceAll(id, fresh);
  return withNewIdempotencyKey(JSON.parse(text) as RouteRequest);
}

/** The cuid2 ids a request names anywhere (path, an ETag, the body). */
const cuidsIn = (request: RouteRequest) => JSON.stringify(request).match(/\b[a-z][a-z0-9]{23}\b/g) ?? [];

const withoutRequestId = (body: string) => ({ ...JSON.parse(body), requestId: undefined });
