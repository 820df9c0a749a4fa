import { Agent, request } from 'node:http';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '#contract/routes.ts';
import { tiers, usageShardOf } from '#contract/tiers.ts';
import { type DatabaseHandle, openDatabase } from '#db/client.ts';
import { generateToken } from '#db/queries/api-keys.ts';
import { silentLogger } from '#functions/http/log.ts';
import { ipRateLimit, RATE_WINDOW_SECONDS } from '#infra/constructs/waf-numbers.ts';
import { type Gateway, startGateway } from '#infra/local/gateway.ts';
import { createRateLimiter, LOCAL_PER_ADDRESS, LOCAL_STAGE_RATE } from '#infra/local/rate-limit.ts';
import { stageConfig } from '#infra/stage.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { recordStatements } from '#test/helpers/recording-database.ts';
import { buildWorld, httpRequestOf, routeKeys, routeRequests } from '#test/helpers/route-requests.ts';
import { createKeyMate, createTenant, type Tenant } from '#test/helpers/tenants.ts';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * One HTTP request from a loopback address of the caller's choosing (the local gateway tells
 * clients apart by address, as WAF does); `headers` as raw pairs, so a header may repeat.
 */
function send(
  base: string,
  options: {
    path: string;
    method?: string;
    from?: string;
    headers?: [string, string][];
    body?: string;
    agent?: Agent;
  },
): Promise<Answer> {
  const url = new URL(options.path, base);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        method: options.method ?? 'GET',
        localAddress: options.from,
        agent: options.agent,
        // Raw pairs: Node then adds no Host of its own.
        headers: [['host', url.host], ...(options.headers ?? [])].flat(),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

const bearer = (token: string): [string, string] => ['authorization', `Bearer ${token}`];
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
/** `count` calls of `call`, `perSecond` of them a second, started on schedule whatever the answers take. */
const paced = <T>(count: number, perSecond: number, call: (i: number) => Promise<T>) =>
  Promise.all(
    Array.from({ length: count }, async (_, i) => {
      await sleep((i * 1000) / perSecond);
      return call(i);
    }),
  );
/** Runs `count` calls `width` at a time. */
async function pooled<T>(count: number, width: number, call: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await call(i);
      }
    }),
  );
  return results;
}

describe("the local gateway plays the web ACL's numbers", () => {
  it('lets one address send a tenth of the stage throttle, as the deployed rule allows over its window', () => {
    const prod = stageConfig('prod', { alarmEmail: 'alarms@example.com' });
    expect(LOCAL_STAGE_RATE).toBe(prod.api.rateLimit);
    expect(LOCAL_PER_ADDRESS.rate).toBe(ipRateLimit(prod.api.rateLimit) / RATE_WINDOW_SECONDS);
    expect(LOCAL_PER_ADDRESS.burst).toBe(ipRateLimit(prod.api.rateLimit));
    expect(LOCAL_PER_ADDRESS.rate).toBeLessThanOrEqual(prod.api.rateLimit / 10);
  });
});

describe('tenants behind the local gateway under floods', () => {
  let database: DatabaseHandle;
  let gateway: Gateway;
  const perAddress = { rate: 10, burst: 20 };

  beforeAll(async () => {
    database = await freshDatabase();
    gateway = await startGateway({
      deps: { database, logger: silentLogger },
      limits: createRateLimiter({ perAddress }),
      waf: true,
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await database?.close();
  });

  it('workspace A at 5× its rate and one anonymous address at 50× the per-IP limit leave workspace B with 0 errors', async () => {
    const a = await createTenant(database.db, { name: 'A' });
    // B on A's usage key: one bucket at the gateway, told apart by the functions only.
    const b = await createKeyMate(database.db, a, 'free', { name: 'B' });
    await database.db.execute(
      sql`update workspaces set tier = 'free' where id in (${a.workspaceId}, ${b.workspaceId})`,
    );
    const get = (tenant: Tenant | undefined, from: string, header?: [string, string]) =>
      send(gateway.url, {
        path: '/agents?limit=1',
        from,
        headers: header ? [header] : tenant ? [bearer(tenant.token)] : [],
      });
    expect((await get(a, '127.0.0.2')).status).toBe(200);
    expect((await get(b, '127.0.0.4')).status).toBe(200);
    expect(usageShardOf(b.workspaceId, 'free')).toBe(usageShardOf(a.workspaceId, 'free'));

    const seconds = 2;
    const junk = (i: number): [string, string] | undefined =>
      [undefined, ['authorization', 'Bearer nope'] as [string, string], bearer(generateToken())][i % 3];
    const started = Date.now();
    const [flood, anonymous, normal] = await Promise.all([
      // A's backend spreads over five addresses, each under the per-IP limit: A's own limit must hold it.
      paced(seconds * 5 * tiers.free.rate, 5 * tiers.free.rate, (i) => get(a, `127.0.0.${10 + (i % 5)}`)),
      paced(50 * perAddress.rate, 50 * perAddress.rate, (i) => get(undefined, '127.0.0.3', junk(i))),
      paced(seconds * 5, 5, () => get(b, '127.0.0.4')),
    ]);

    const elapsed = (Date.now() - started) / 1000;
    expect(normal.map((res) => res.status)).toEqual(normal.map(() => 200));
    const refused = flood.filter((res) => res.status === 429);
    expect(refused.length + flood.filter((res) => res.status === 200).length).toBe(flood.length);
    // A got its burst (less the warm-up's request) and what its rate refilled while the flood lasted.
    expect(flood.length - refused.length).toBeLessThanOrEqual(
      tiers.free.burst + Math.ceil(tiers.free.rate * elapsed),
    );
    // A's own limit, from the function: its problem, with Retry-After, naming the workspace's rate.
    for (const res of refused) {
      expect(res.headers['retry-after']).toMatch(/^\d+$/);
      expect(JSON.parse(res.body)).toMatchObject({
        type: 'https://voice-agent-admin.dev/problems/rate-limited',
        status: 429,
        detail: `This workspace is over its rate limit of ${tiers.free.rate} requests per second.`,
      });
    }
    // The anonymous address: refused by shape (401) or unknown (403) until its bucket ran dry, then WAF's 429.
    const statuses = anonymous.map((res) => res.status);
    expect(new Set(statuses)).toEqual(new Set([401, 403, 429]));
    const passed = statuses.filter((s) => s !== 429).length;
    expect(passed).toBeLessThanOrEqual(perAddress.burst + Math.ceil(perAddress.rate * elapsed));
    const blocked = anonymous.find((res) => res.status === 429) as Answer;
    expect(JSON.parse(blocked.body)).toMatchObject({ status: 429, blockedBy: 'rate-per-ip' });
    expect(blocked.headers['x-amzn-waf-retry-after']).toMatch(/^\d+$/);
  });

  it('refuses a missing or malformed Authorization before the authorizer, naming the rule', async () => {
    for (const headers of [
      [],
      [['authorization', 'Bearer nope']],
      [['authorization', `Token ${generateToken()}`]],
    ] as [string, string][][]) {
      const res = await send(gateway.url, { path: '/agents', from: '127.0.0.5', headers });
      expect(res.status).toBe(401);
      expect(res.headers['content-type']).toBe('application/json');
      expect(JSON.parse(res.body)).toMatchObject({
        type: 'https://voice-agent-admin.dev/problems/unauthenticated',
        status: 401,
        blockedBy: 'token-shape',
      });
    }
  });

  it('refuses two Authorization headers with a 400 naming the header, before the authorizer and in the function', async () => {
    const tenant = await createTenant(database.db);
    const twice = [bearer(tenant.token), bearer(tenant.token)];
    const res = await send(gateway.url, { path: '/agents', from: '127.0.0.6', headers: twice });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({
      type: 'https://voice-agent-admin.dev/problems/duplicate-header',
      status: 400,
      detail: expect.stringContaining('Authorization'),
      blockedBy: 'authorization-repeated',
    });
    // Without the web ACL (a preview), the function refuses them the same: 400 problem naming the header.
    const bare = await startGateway({ deps: { database, logger: silentLogger } });
    try {
      const behind = await send(bare.url, {
        path: '/agents',
        headers: [bearer(tenant.token), bearer(generateToken())],
      });
      expect(behind.status).toBe(400);
      expect(behind.headers['content-type']).toBe('application/problem+json');
      expect(JSON.parse(behind.body)).toMatchObject({
        type: 'https://voice-agent-admin.dev/problems/duplicate-header',
        status: 400,
        errors: [{ path: 'headers.authorization', message: 'must be sent once' }],
      });
      expect((await send(bare.url, { path: '/agents', headers: [bearer(tenant.token)] })).status).toBe(200);
    } finally {
      await bare.close();
    }
  });
});

describe('a rotating-token flood through the local gateway', () => {
  let database: DatabaseHandle;
  let recorded: ReturnType<typeof recordStatements>;
  let gateway: Gateway;

  beforeAll(async () => {
    database = await freshDatabase();
    recorded = recordStatements(database);
    gateway = await startGateway({
      deps: { database: recorded.client, logger: silentLogger },
      // API Gateway's own cache off, and no per-IP limit: the flood as if spread over many
      // addresses, every request reaching the authorizer. Only its refusal cache stands between.
      authorizerCacheTtlSeconds: 0,
      limits: createRateLimiter({ perAddress: { rate: 1e6, burst: 1e6 } }),
      waf: true,
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await database?.close();
  });

  it('costs at most one lookup per made-up token, and workspace B sees 0 errors', async () => {
    const b = await createTenant(database.db, { name: 'B' });
    const tokens = Array.from({ length: 10_000 }, () => generateToken());
    const agent = new Agent({ keepAlive: true, maxSockets: 16 });
    const before = recorded.lookups();
    const started = Date.now();
    // Every token once; every tenth step also one sent 100 steps before, once that one is answered
    // (a request still in flight has no refusal to find yet, however long ago it was sent).
    const order = tokens.flatMap((token, k) =>
      k % 10 === 9 && k >= 100 ? [token, tokens[k - 100] as string] : [token],
    );
    const answered = new Map<string, Promise<unknown>>();
    const [flood, normal] = await Promise.all([
      pooled(order.length, 16, async (i) => {
        const token = order[i] as string;
        await answered.get(token);
        const answer = send(gateway.url, { path: '/agents', agent, headers: [bearer(token)] });
        answered.set(token, answer);
        return answer;
      }),
      paced(40, 10, () => send(gateway.url, { path: '/agents?limit=1', headers: [bearer(b.token)] })),
    ]);
    agent.destroy();
    const lookups = recorded.lookups() - before;
    expect(order.length).toBeGreaterThan(tokens.length + 900);
    expect(flood.every((res) => res.status === 403)).toBe(true);
    expect(normal.map((res) => res.status)).toEqual(normal.map(() => 200));
    // B's own lookups (its token is looked up on every request: the gateway's cache is off) aside.
    expect(lookups - normal.length).toBeLessThanOrEqual(tokens.length);
    expect(lookups - normal.length).toBeGreaterThanOrEqual(tokens.length);
    expect(Date.now() - started).toBeLessThan(120_000);
  }, 180_000);
});

describe('the database down during authorization', () => {
  let database: DatabaseHandle;
  let down: DatabaseHandle;
  let gateway: Gateway;

  beforeAll(async () => {
    database = await freshDatabase();
    // Nothing listens on the discard port: every connection is refused, as while the cluster is away.
    down = await openDatabase({ kind: 'postgres', url: 'postgres://app:app@127.0.0.1:9/none', poolMax: 1 });
    gateway = await startGateway({
      deps: { database: down, logger: silentLogger },
      limits: createRateLimiter(),
      waf: true,
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await down?.close().catch(() => undefined);
    await database?.close();
  });

  it('answers 503 with Retry-After on every route, never a 400 or 403', async () => {
    const world = await buildWorld(database);
    for (const key of routeKeys) {
      const { path, method, headers, body } = httpRequestOf(world, await routeRequests[key](world));
      const res = await send(gateway.url, { path, method, headers: Object.entries(headers), body });
      expect({ route: routes[key].name, status: res.status }).toEqual({
        route: routes[key].name,
        status: 503,
      });
      expect(res.headers['retry-after'], key).toMatch(/^\d+$/);
      // The function's own answer, reached through the deferred allow: not API Gateway's.
      expect(JSON.parse(res.body)).toMatchObject({
        type: 'https://voice-agent-admin.dev/problems/database-unavailable',
        status: 503,
      });
    }
  }, 120_000);
});
