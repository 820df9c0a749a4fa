import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '#db/client.ts';
import { revokeApiKey } from '#db/queries/manage-api-keys.ts';
import { silentLogger } from '#functions/http/log.ts';
import { TtlCache } from '#infra/local/cache.ts';
import { startGateway } from '#infra/local/gateway.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { literalGatewayBody } from '#test/helpers/gateway-answers.ts';
import { recordStatements } from '#test/helpers/recording-database.ts';
import { createTenant } from '#test/helpers/tenants.ts';

let database: DatabaseHandle;

beforeAll(async () => {
  database = await freshDatabase();
});

afterAll(async () => {
  await database?.close();
});

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

describe('authorizer result cache over HTTP', () => {
  it('refuses a revoked key on its next request while its allow is cached, asking the authorizer only once the TTL is over', async () => {
    const ttlMs = 1_500;
    const recorded = recordStatements(database);
    const gateway = await startGateway({
      deps: { database: recorded.client, logger: silentLogger },
      authorizerCacheTtlSeconds: ttlMs / 1000,
    });
    try {
      const get = (token: string) =>
        fetch(`${gateway.url}/sessions`, { headers: { authorization: `Bearer ${token}` } });
      /** API Gateway's own 403 for a key it denies, byte for byte. */
      const expectInvalidKey = async (res: Response) => {
        expect(res.status).toBe(403);
        expect(res.headers.get('content-type')).toBe('application/problem+json');
        expect(await res.text()).toBe(literalGatewayBody(403, res.headers.get('x-request-id') ?? ''));
      };
      // Warm up first, so a slow first request cannot eat the TTL.
      expect((await get((await createTenant(database.db)).token)).status).toBe(200);
      const tenant = await createTenant(database.db);
      const started = Date.now();
      expect((await get(tenant.token)).status).toBe(200);
      const answered = Date.now(); // the answer was cached before this
      const lookups = recorded.lookups();
      expect(await revokeApiKey(database.db, tenant.keyId)).toBe(true);
      // The cached allow is used (no lookup), and the route's statement refuses the key.
      await expectInvalidKey(await get(tenant.token));
      expect(recorded.lookups()).toBe(lookups);
      // Only meaningful while the first answer is still fresh.
      expect(Date.now() - started).toBeLessThan(ttlMs);
      // Once the TTL is over the authorizer is asked again, and its Deny is the same answer.
      await sleep(answered + ttlMs + 50 - Date.now());
      await expectInvalidKey(await get(tenant.token));
      expect(recorded.lookups()).toBe(lookups + 1);
    } finally {
      await gateway.close();
    }
  });

  it('with a TTL of 0 asks the authorizer every time: a revoked key is refused at once', async () => {
    const gateway = await startGateway({
      deps: { database: database, logger: silentLogger },
      authorizerCacheTtlSeconds: 0,
    });
    try {
      const tenant = await createTenant(database.db);
      const get = () =>
        fetch(`${gateway.url}/agents`, { headers: { authorization: `Bearer ${tenant.token}` } });
      expect((await get()).status).toBe(200);
      await revokeApiKey(database.db, tenant.keyId);
      expect((await get()).status).toBe(403);
    } finally {
      await gateway.close();
    }
  });
});

describe('TtlCache', () => {
  const clock = () => {
    let now = 1_000;
    return { now: () => now, advance: (ms: number) => (now += ms) };
  };

  it('answers until the TTL has passed, then forgets the entry', () => {
    const time = clock();
    const cache = new TtlCache<string>(1_000, 10, time.now);
    cache.set('a', 'allow');
    time.advance(999);
    expect(cache.get('a')).toBe('allow');
    time.advance(1);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('drops expired entries as new ones arrive', () => {
    const time = clock();
    const cache = new TtlCache<string>(1_000, 10, time.now);
    for (const key of ['a', 'b', 'c']) cache.set(key, key);
    time.advance(1_000);
    cache.set('d', 'd');
    expect(cache.size).toBe(1);
  });

  it('is bounded: when full, the oldest entry goes', () => {
    const time = clock();
    const cache = new TtlCache<number>(60_000, 3, time.now);
    for (let i = 0; i < 5; i++) {
      cache.set(`k${i}`, i);
      time.advance(1);
    }
    expect(cache.size).toBe(3);
    expect(cache.get('k0')).toBeUndefined();
    expect(cache.get('k1')).toBeUndefined();
    expect(cache.get('k4')).toBe(4);
  });

  it('stores nothing with a TTL of 0', () => {
    const cache = new TtlCache<string>(0);
    cache.set('a', 'allow');
    expect(cache.get('a')).toBeUndefined();
  });
});
