import { createServer, type Server } from 'node:http';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeList } from '#contract/routes.ts';
import { tiers, usageKeyPlanOf, usageShardOf } from '#contract/tiers.ts';
import type { DatabaseHandle } from '#db/client.ts';
import { generateToken } from '#db/queries/api-keys.ts';
import { build as buildAuthorizer } from '#functions/authorizer.ts';
import { silentLogger } from '#functions/http/log.ts';
import type { AuthorizerEvent } from '#functions/http/types.ts';
import { type Gateway, startGateway } from '#infra/local/gateway.ts';
import { listen } from '#infra/local/listen.ts';
import { createListener } from '#infra/local/listener.ts';
import { createRateLimiter } from '#infra/local/rate-limit.ts';
import type { HttpAnswer } from '#infra/local/result.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { createKeyMate, createTenant } from '#test/helpers/tenants.ts';

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** A 429 as every limit answers it: a problem with Retry-After and the headers of every answer. */
async function expectLimited(res: Response, retryAfter?: number) {
  expect(res.status).toBe(429);
  expect(res.headers.get('content-type')).toBe('application/problem+json');
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  expect(res.headers.get('cache-control')).toBe('no-store');
  const requestId = res.headers.get('x-request-id');
  expect(requestId).toBeTruthy();
  const seconds = Number(res.headers.get('retry-after'));
  expect(Number.isInteger(seconds) && seconds >= 1).toBe(true);
  if (retryAfter !== undefined) expect(seconds).toBe(retryAfter);
  expect(await res.json()).toEqual({
    type: 'https://voice-agent-admin.dev/problems/rate-limited',
    title: 'Too Many Requests',
    status: 429,
    detail: expect.any(String),
    requestId,
  });
}

/** The web ACL's rate-per-ip answer: its problem as WAF sends it, Retry-After under WAF's prefix. */
async function expectBlockedByWaf(res: Response) {
  expect(res.status).toBe(429);
  expect(res.headers.get('content-type')).toBe('application/json');
  expect(Number(res.headers.get('x-amzn-waf-retry-after'))).toBeGreaterThanOrEqual(1);
  expect(await res.json()).toEqual({
    type: 'https://voice-agent-admin.dev/problems/rate-limited',
    title: 'Too Many Requests',
    status: 429,
    detail: expect.any(String),
    blockedBy: 'rate-per-ip',
  });
}

const asResponse = (answer: HttpAnswer | undefined) =>
  answer && new Response(answer.body, { status: answer.statusCode, headers: answer.headers });

describe('the limiter on its own clock', () => {
  const clock = (start = Date.UTC(2026, 0, 1, 12)) => {
    let now = start;
    return { now: () => now, advance: (ms: number) => (now += ms) };
  };
  const context = (workspaceId: string, tier: string) => ({ workspaceId, tier, scopes: '' });

  it("lets a key's plan burst through (the tier's times USAGE_KEY_HEADROOM), then answers 429 until the rate refills a token", async () => {
    const time = clock();
    const limiter = createRateLimiter({ now: time.now });
    const { rate, burst } = usageKeyPlanOf('free');
    for (let i = 0; i < burst; i++) expect(limiter.afterAllow(context('a', 'free'), `r${i}`)).toBeUndefined();
    await expectLimited(asResponse(limiter.afterAllow(context('a', 'free'), 'over')) as Response, 1);
    // An answer naming no usage key is metered by its workspace: another one has a bucket of its own.
    expect(limiter.afterAllow(context('b', 'free'), 'b')).toBeUndefined();
    time.advance(1000 / rate);
    expect(limiter.afterAllow(context('a', 'free'), 'refilled')).toBeUndefined();
    expect(limiter.afterAllow(context('a', 'free'), 'again')).toBeDefined();
  });

  it("applies the plan of the tier the authorizer named, standard's when it named none", () => {
    const time = clock();
    const limiter = createRateLimiter({ now: time.now });
    let allowed = 0;
    while (!limiter.afterAllow(context('p', 'pro'), 'x') && allowed < 100_000) allowed++;
    expect(allowed).toBe(usageKeyPlanOf('pro').burst);
    allowed = 0;
    while (!limiter.afterAllow({ workspaceId: 's' }, 'x') && allowed < 100_000) allowed++;
    expect(allowed).toBe(usageKeyPlanOf('standard').burst);
  });

  it('leaves a deferred answer (no workspace) to the handler', () => {
    const limiter = createRateLimiter();
    for (let i = 0; i < 1_000; i++)
      expect(limiter.afterAllow({ deferred: 'database-unavailable' }, 'd')).toBeUndefined();
  });

  it("bounds every request per address, each address on its own, with WAF's answer", async () => {
    const time = clock();
    const limiter = createRateLimiter({ now: time.now, perAddress: { rate: 2, burst: 4 } });
    for (let i = 0; i < 4; i++) expect(limiter.perAddress('10.0.0.1')).toBeUndefined();
    await expectBlockedByWaf(asResponse(limiter.perAddress('10.0.0.1')) as Response);
    expect(limiter.perAddress('10.0.0.2')).toBeUndefined();
    time.advance(500);
    expect(limiter.perAddress('10.0.0.1')).toBeUndefined();
  });

  it("shares one usage key's bucket between the workspaces the authorizer metered on it", () => {
    const limiter = createRateLimiter({ now: clock().now });
    const shared = (id: string) => ({ ...context(id, 'free'), usageIdentifierKey: 'vaw_local_free_0007' });
    for (let i = 0; i < usageKeyPlanOf('free').burst; i++)
      expect(limiter.afterAllow(shared('a'), 'a')).toBeUndefined();
    expect(limiter.afterAllow(shared('b'), 'b')).toBeDefined();
  });

  it('keeps at most maxEntries buckets', () => {
    const time = clock();
    const limiter = createRateLimiter({ now: time.now, maxEntries: 3 });
    // Four workspaces each spend their burst; the first one's bucket is then forgotten (full again).
    for (const id of ['w1', 'w2', 'w3', 'w4']) {
      for (let i = 0; i < usageKeyPlanOf('free').burst; i++) limiter.afterAllow(context(id, 'free'), 'x');
    }
    expect(limiter.afterAllow(context('w4', 'free'), 'x')).toBeDefined();
    expect(limiter.afterAllow(context('w1', 'free'), 'x')).toBeUndefined();
  });
});

describe('limits through the local gateway', () => {
  let database: DatabaseHandle;
  let gateway: Gateway;

  beforeAll(async () => {
    database = await freshDatabase();
    gateway = await startGateway({
      deps: { database, logger: silentLogger },
      limits: createRateLimiter(),
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await database?.close();
  });

  it("workspace A at 5× its rate gets the functions' 429s with Retry-After while B, on A's usage key, gets none", async () => {
    const a = await createTenant(database.db, { name: 'A' });
    // B shares A's usage key (one bucket at the gateway): only the functions tell them apart.
    const b = await createKeyMate(database.db, a, 'free', { name: 'B' });
    expect(usageShardOf(b.workspaceId, 'free')).toBe(usageShardOf(a.workspaceId, 'free'));
    await database.db.execute(
      sql`update workspaces set tier = 'free' where id in (${a.workspaceId}, ${b.workspaceId})`,
    );
    const get = (token: string) =>
      fetch(`${gateway.url}/agents?limit=1`, { headers: { authorization: `Bearer ${token}` } });
    // Warm the authorizer cache and the route's first statement, outside the measured window.
    expect((await get(a.token)).status).toBe(200);
    expect((await get(b.token)).status).toBe(200);

    const { rate } = tiers.free;
    const seconds = 3;
    const paced = (token: string, perSecond: number) =>
      Promise.all(
        Array.from({ length: seconds * perSecond }, async (_, i) => {
          await sleep((i * 1000) / perSecond);
          return get(token);
        }),
      );
    const started = Date.now();
    const [flood, normal] = await Promise.all([paced(a.token, 5 * rate), paced(b.token, rate - 1)]);
    const elapsed = (Date.now() - started) / 1000;

    expect(normal.map((res) => res.status)).toEqual(normal.map(() => 200));
    const limited = flood.filter((res) => res.status === 429);
    const ok = flood.filter((res) => res.status === 200);
    expect(ok.length + limited.length).toBe(flood.length);
    // A's burst left after the warm-up, plus what the rate refilled while the flood lasted.
    expect(ok.length).toBeLessThanOrEqual(tiers.free.burst + Math.ceil(rate * elapsed));
    expect(limited.length).toBeGreaterThanOrEqual(flood.length / 2);
    for (const res of limited.slice(0, 3)) await expectLimited(res);
    await Promise.all([...ok, ...limited.slice(3), ...normal].map((res) => res.body?.cancel()));
  });
});

describe("each workspace's daily quota through the local gateway", () => {
  let database: DatabaseHandle;
  let gateway: Gateway;
  const small = { ...tiers, free: { rate: 1000, burst: 1000, dailyQuota: 3 } };

  beforeAll(async () => {
    database = await freshDatabase();
    gateway = await startGateway({
      deps: { database, logger: silentLogger },
      limits: createRateLimiter({ tiers: small }),
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await database?.close();
  });

  it("refuses A past its quota with a quota-exceeded problem and Retry-After until midnight; B on A's key goes on", async () => {
    const a = await createTenant(database.db, { name: 'A' });
    const b = await createKeyMate(database.db, a, 'free', { name: 'B' });
    await database.db.execute(
      sql`update workspaces set tier = 'free' where id in (${a.workspaceId}, ${b.workspaceId})`,
    );
    const get = (token: string) =>
      fetch(`${gateway.url}/agents?limit=1`, { headers: { authorization: `Bearer ${token}` } });
    for (let i = 0; i < small.free.dailyQuota; i++) expect((await get(a.token)).status).toBe(200);
    const over = await get(a.token);
    expect(over.status).toBe(429);
    const toMidnight = Math.ceil((Math.ceil(Date.now() / 86_400_000) * 86_400_000 - Date.now()) / 1000);
    expect(Math.abs(Number(over.headers.get('retry-after')) - toMidnight)).toBeLessThanOrEqual(5);
    expect(await over.json()).toMatchObject({
      type: 'https://voice-agent-admin.dev/problems/quota-exceeded',
      status: 429,
      detail: 'This workspace has used its daily quota of 3 requests; it resets at 00:00 UTC.',
    });
    expect((await get(b.token)).status).toBe(200);
  });
});

describe('unauthenticated floods through the local gateway', () => {
  let database: DatabaseHandle;
  let server: Server;
  let url: string;
  let calls = 0;
  const bucket = { rate: 10, burst: 20 };

  beforeAll(async () => {
    database = await freshDatabase();
    const authorize = buildAuthorizer({ database, logger: silentLogger });
    const listener = createListener({
      routes: routeList.map((route) => ({
        method: route.method,
        path: route.path,
        handler: async () => ({ statusCode: 200, body: '{}' }),
      })),
      authorizer: (event: AuthorizerEvent) => {
        calls++;
        return authorize(event);
      },
      authorizerCacheTtlSeconds: 60,
      logger: silentLogger,
      limits: createRateLimiter({ perAddress: bucket }),
    });
    server = createServer(listener);
    url = await listen(server);
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((done) => server?.close(done));
    await database?.close();
  });

  it('do not reach the authorizer more often than the per-address rate allows', async () => {
    const flood = 150;
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: flood }, () =>
        fetch(`${url}/agents`, { headers: { authorization: `Bearer ${generateToken()}` } }),
      ),
    );
    const elapsed = (Date.now() - started) / 1000;
    const statuses = answers.map((res) => res.status);
    expect(calls).toBeGreaterThanOrEqual(bucket.burst);
    expect(calls).toBeLessThanOrEqual(bucket.burst + Math.ceil(bucket.rate * elapsed));
    expect(statuses.filter((s) => s === 403)).toHaveLength(calls);
    expect(statuses.filter((s) => s === 429)).toHaveLength(flood - calls);
    await expectBlockedByWaf(answers[statuses.indexOf(429)] as Response);
    await Promise.all(answers.filter((res) => !res.bodyUsed).map((res) => res.body?.cancel()));
  });
});
