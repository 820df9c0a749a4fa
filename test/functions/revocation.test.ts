import { createId } from '@paralleldrive/cuid2';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '#contract/routes.ts';
import type { DatabaseHandle } from '#db/client.ts';
import { revokeApiKey } from '#db/queries/manage-api-keys.ts';
import { apiKeys } from '#db/schema/index.ts';
import { silentLogger } from '#functions/http/log.ts';
import { type Gateway, startGateway } from '#infra/local/gateway.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { literalGatewayBody } from '#test/helpers/gateway-answers.ts';
import { recordStatements } from '#test/helpers/recording-database.ts';
import {
  buildWorld,
  type RouteKey,
  type RouteRequest,
  routeKeys,
  routeRequests,
  sendTo,
  type World,
  withUnknownIds,
} from '#test/helpers/route-requests.ts';
import { tableStates } from '#test/helpers/table-states.ts';

// Every route's statement checks that the calling key is still live: a key revoked (or expired)
// while API Gateway still caches the authorizer's allow for it is refused on its next request, with
// API Gateway's own 403, and the request writes nothing. The cache still saves the lookup.

const HOUR = 3_600;
const kinds = ['revoked', 'expired'] as const;
type Kind = (typeof kinds)[number];

describe('a key revoked or expired while its allow is cached (local gateway, authorizer cache on)', () => {
  let database: DatabaseHandle;
  let recorded: ReturnType<typeof recordStatements>;
  let gateway: Gateway;

  beforeAll(async () => {
    database = await freshDatabase();
    recorded = recordStatements(database);
    gateway = await startGateway({
      deps: { database: recorded.client, logger: silentLogger },
      authorizerCacheTtlSeconds: HOUR,
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await database?.close();
  });

  const end: Record<Kind, (world: World) => Promise<unknown>> = {
    revoked: (world) => revokeApiKey(database.db, world.caller.keyId),
    expired: (world) =>
      database.db
        .update(apiKeys)
        .set({ expiresAt: new Date(Date.now() - 1_000).toISOString() })
        .where(eq(apiKeys.id, world.caller.keyId)),
  };

  const send = (world: World, request: RouteRequest) => sendTo(gateway.url, world, request);

  /** Answered as asked, while the key is live (the body shown when not). */
  async function expectAnswered(response: Response, status: number) {
    const body = await response.text();
    expect({ status: response.status, body }).toEqual({ status, body: expect.any(String) });
    return body;
  }

  /** API Gateway's own 403 for a key it denies, byte for byte, with the headers of every answer. */
  async function expectInvalidKey(response: Response) {
    const requestId = response.headers.get('x-request-id') ?? '';
    expect(response.status).toBe(403);
    expect(requestId).not.toBe('');
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await response.text()).toBe(literalGatewayBody(403, requestId));
  }

  /**
   * The request, refused: the invalid-key 403, nothing written anywhere, and the authorizer not
   * asked again (its cached allow was used: the refusal came from the route's statement).
   */
  async function expectRefused(world: World, request: RouteRequest) {
    const before = { lookups: recorded.lookups(), tables: await tableStates(database.db) };
    await expectInvalidKey(await send(world, request));
    expect({ lookups: recorded.lookups(), tables: await tableStates(database.db) }).toEqual(before);
  }

  describe.each(kinds)('when the key is %s', (kind) => {
    it.each(routeKeys)('%s: refused on the next request, writing nothing', async (key) => {
      const world = await buildWorld(database);
      const first = await routeRequests[key](world);
      await expectAnswered(await send(world, first), first.status);
      await end[kind](world);
      await expectRefused(world, await routeRequests[key](world));
    });
  });

  describe('where the statement finds nothing, the key is refused all the same', () => {
    const withIds = routeKeys.filter((key) => routes[key].path.includes('{'));

    it.each(withIds)('%s naming ids no row has: 404 while live, 403 once revoked', async (key) => {
      const world = await buildWorld(database);
      const first = withUnknownIds(key, await routeRequests[key](world));
      await expectAnswered(await send(world, first), 404);
      await end.revoked(world);
      await expectRefused(world, withUnknownIds(key, await routeRequests[key](world)));
    });

    const emptyPages: [RouteKey, (world: World) => string][] = [
      ['listAgents', () => `q=${createId()}`],
      ['listSessions', () => `agentId=${createId()}`],
      ['listVersions', () => 'offset=1000'],
      ['agentHistory', () => 'offset=1000'],
      ['listEvents', () => 'type=usage.booked'],
    ];

    it.each(emptyPages)(
      '%s, a page with nothing on it: [] while live, 403 once revoked',
      async (key, query) => {
        const world = await buildWorld(database);
        const page = async () => ({ ...(await routeRequests[key](world)), query: query(world) });
        expect(await expectAnswered(await send(world, await page()), 200)).toBe('[]');
        await end.revoked(world);
        await expectRefused(world, await page());
      },
    );
  });

  describe('the creates, with and without an Idempotency-Key', () => {
    const withoutKey = ({ headers = {}, ...request }: RouteRequest): RouteRequest => ({
      ...request,
      headers: Object.fromEntries(Object.entries(headers).filter(([name]) => name !== 'idempotency-key')),
    });
    const withKey = (request: RouteRequest): RouteRequest => ({
      ...request,
      headers: { ...request.headers, 'idempotency-key': `revocation-${createId()}` },
    });
    const variants: [RouteKey, string, (request: RouteRequest) => RouteRequest][] = [
      ['createAgent', 'with', withKey],
      ['createVersion', 'without', withoutKey],
    ];

    it.each(variants)('%s %s one: refused, writing nothing', async (key, _, variant) => {
      const world = await buildWorld(database);
      const first = variant(await routeRequests[key](world));
      await expectAnswered(await send(world, first), first.status);
      await end.revoked(world);
      await expectRefused(world, variant(await routeRequests[key](world)));
    });

    it('a request repeated with its Idempotency-Key once the key is revoked: refused, not replayed', async () => {
      const world = await buildWorld(database);
      const request = await routeRequests.createSession(world);
      await expectAnswered(await send(world, request), 201);
      await end.revoked(world);
      await expectRefused(world, request);
    });
  });
});
