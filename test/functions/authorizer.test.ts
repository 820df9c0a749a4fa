import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deferredUsageKeyValue, usageIdentifierOf, usageShardOf } from '#contract/tiers.ts';
import { type DatabaseHandle, openDatabase } from '#db/client.ts';
import { generateToken } from '#db/queries/api-keys.ts';
import { revokeApiKey } from '#db/queries/manage-api-keys.ts';
import { rowsOf } from '#db/queries/rows.ts';
import { build } from '#functions/authorizer.ts';
import { Refusals } from '#functions/http/bearer.ts';
import { silentLogger } from '#functions/http/log.ts';
import type { AuthorizerEvent } from '#functions/http/types.ts';
import { build as buildListSessions } from '#functions/sessions/list.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { apiEvent } from '#test/helpers/events.ts';
import { authorizerContext, isAllowed } from '#test/helpers/policy.ts';
import { recordStatements } from '#test/helpers/recording-database.ts';
import { expectProblem } from '#test/helpers/responses.ts';
import { createTenant, type Tenant } from '#test/helpers/tenants.ts';

const authorizerEvent = (authorization?: string): AuthorizerEvent =>
  ({
    type: 'REQUEST',
    methodArn: METHOD_ARN,
    resource: '/sessions',
    path: '/sessions',
    httpMethod: 'GET',
    headers: authorization ? { Authorization: authorization } : {},
    multiValueHeaders: authorization ? { Authorization: [authorization] } : {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: {},
    stageVariables: {},
    requestContext: { requestId: 'req-1' },
  }) as unknown as AuthorizerEvent;

const METHOD_ARN = 'arn:aws:execute-api:eu-west-1:000000000000:api/v1/GET/sessions';
// Every method of the stage: a cached answer serves every route the token calls.
const policy = (effect: 'Allow' | 'Deny') => ({
  Version: '2012-10-17',
  Statement: [
    {
      Action: 'execute-api:Invoke',
      Effect: effect,
      Resource: 'arn:aws:execute-api:eu-west-1:000000000000:api/v1/*',
    },
  ],
});

describe('the bearer authorizer', () => {
  let handle: DatabaseHandle;
  let authorize: ReturnType<typeof build>;
  let tenant: Tenant;

  beforeAll(async () => {
    handle = await freshDatabase();
    authorize = build({ database: handle, logger: silentLogger });
    tenant = await createTenant(handle.db, { scopes: ['sessions:read'] });
  });
  afterAll(() => handle.close());

  it('allows a live key with its workspace, principal and scopes in the context', async () => {
    expect(await authorize(authorizerEvent(`Bearer ${tenant.token}`))).toEqual({
      principalId: tenant.principalId,
      policyDocument: policy('Allow'),
      context: {
        workspaceId: tenant.workspaceId,
        principalId: tenant.principalId,
        keyId: tenant.keyId,
        scopes: 'sessions:read',
        tier: 'standard',
        usageIdentifierKey: usageIdentifierOf('local', tenant.workspaceId, 'standard'),
      },
      // API Gateway meters the call against this key's usage plan (API key source AUTHORIZER).
      usageIdentifierKey: usageIdentifierOf('local', tenant.workspaceId, 'standard'),
    });
  });

  it("names the key of the workspace's tier and shard in the stage's pool", async () => {
    const prefixed = build(
      { database: handle, logger: silentLogger },
      { usageKeyPrefix: 'VoiceAgentAdmin-prod' },
    );
    const answer = await prefixed(authorizerEvent(`Bearer ${tenant.token}`));
    const shard = String(usageShardOf(tenant.workspaceId, 'standard')).padStart(4, '0');
    expect(answer.usageIdentifierKey).toBe(`vaw_VoiceAgentAdmin-prod_standard_${shard}`);
  });

  it('looks a made-up token up once: its refusal is kept (bounded), a live key is never refused', async () => {
    const recorded = recordStatements(handle);
    const refused = new Refusals(60_000, 3);
    const authorizeOnce = build(
      { database: recorded.client, logger: silentLogger },
      { usageKeyPrefix: 'local', refusals: refused },
    );
    const made = [generateToken(), generateToken(), generateToken(), generateToken()];
    for (const token of [...made.slice(0, 3), ...made.slice(0, 3)])
      expect(isAllowed(await authorizeOnce(authorizerEvent(`Bearer ${token}`)))).toBe(false);
    expect(recorded.lookups()).toBe(3);
    // Bounded: a fourth pushes the oldest out, which then costs a lookup again.
    await authorizeOnce(authorizerEvent(`Bearer ${made[3]}`));
    expect(refused.size).toBe(3);
    await authorizeOnce(authorizerEvent(`Bearer ${made[0]}`));
    expect(recorded.lookups()).toBe(5);
    for (let i = 0; i < 2; i++)
      expect(isAllowed(await authorizeOnce(authorizerEvent(`Bearer ${tenant.token}`)))).toBe(true);
    expect(recorded.lookups()).toBe(7);
  });

  it('forgets a refusal after its time', () => {
    let now = 0;
    const refused = new Refusals(1_000, 10, () => now);
    refused.add('vak_x');
    expect(refused.has('vak_x')).toBe(true);
    now = 1_000;
    expect(refused.has('vak_x')).toBe(false);
  });

  it('defers two Authorization headers to the function, without a lookup, naming the deferred key', async () => {
    const recorded = recordStatements(handle);
    const event = authorizerEvent(`Bearer ${tenant.token}`);
    event.multiValueHeaders = {
      Authorization: [`Bearer ${tenant.token}`],
      authorization: [`Bearer ${generateToken()}`],
    };
    const answer = await build(
      { database: recorded.client, logger: silentLogger },
      { usageKeyPrefix: 'VoiceAgentAdmin-prod' },
    )(event);
    expect(answer).toEqual({
      principalId: 'deferred',
      policyDocument: policy('Allow'),
      context: { deferred: 'authorization-repeated' },
      usageIdentifierKey: deferredUsageKeyValue('VoiceAgentAdmin-prod'),
    });
    expect(recorded.lookups()).toBe(0);
    const listSessions = buildListSessions({ database: handle, logger: silentLogger });
    const request = apiEvent({ path: '/sessions', caller: tenant });
    request.multiValueHeaders = event.multiValueHeaders;
    request.requestContext.authorizer = authorizerContext({ deferred: 'authorization-repeated' });
    const refused = await listSessions(request);
    expectProblem(refused, 400);
    expect(JSON.parse(refused.body).detail).toContain('Authorization');
  });

  it("returns the workspace's current tier", async () => {
    const other = await createTenant(handle.db);
    await handle.db.execute(sql`update workspaces set tier = 'pro' where id = ${other.workspaceId}`);
    const answer = await authorize(authorizerEvent(`Bearer ${other.token}`));
    expect(answer.context).toMatchObject({ workspaceId: other.workspaceId, tier: 'pro' });
  });

  it('accepts the scheme in any case', async () => {
    expect(isAllowed(await authorize(authorizerEvent(`bearer ${tenant.token}`)))).toBe(true);
  });

  it('records when a key was last used', async () => {
    const [row] = rowsOf<{ last_used_at: unknown }>(
      await handle.db.execute(sql`select last_used_at from api_keys where id = ${tenant.keyId}`),
    );
    expect(row?.last_used_at).not.toBeNull();
  });

  it('marks a busy key used at most once a minute: its row is not rewritten by every request', async () => {
    const other = await createTenant(handle.db);
    // xmin changes with every new version of the row, even when the new version is equal.
    const version = async () =>
      rowsOf<{ xmin: string; used: string | null }>(
        await handle.db.execute(
          sql`select xmin::text as xmin, last_used_at::text as used from api_keys where id = ${other.keyId}`,
        ),
      )[0];
    expect((await version())?.used).toBeNull();
    expect(isAllowed(await authorize(authorizerEvent(`Bearer ${other.token}`)))).toBe(true);
    const marked = await version();
    expect(marked?.used).not.toBeNull();
    for (let i = 0; i < 3; i++)
      expect(isAllowed(await authorize(authorizerEvent(`Bearer ${other.token}`)))).toBe(true);
    expect(await version()).toEqual(marked);
    // A mark older than a minute is renewed.
    await handle.db.execute(
      sql`update api_keys set last_used_at = now() - interval '61 seconds' where id = ${other.keyId}`,
    );
    const stale = await version();
    expect(isAllowed(await authorize(authorizerEvent(`Bearer ${other.token}`)))).toBe(true);
    const renewed = await version();
    expect(renewed?.xmin).not.toBe(stale?.xmin);
    expect(Date.parse(renewed?.used ?? '')).toBeGreaterThan(Date.parse(stale?.used ?? ''));
  });

  it.each([
    ['no header', undefined],
    ['another scheme', `Basic ${Buffer.from('a:b').toString('base64')}`],
    ['a token of the wrong shape', 'Bearer not-a-token'],
    ['an unknown token', `Bearer vak_${'A'.repeat(43)}`],
    ['a token with trailing junk', `Bearer ${'vak_'}${'A'.repeat(43)} x`],
  ])('denies %s', async (_, header) => {
    expect(await authorize(authorizerEvent(header))).toEqual({
      principalId: 'anonymous',
      policyDocument: policy('Deny'),
      context: {},
    });
  });

  it('denies a revoked key', async () => {
    const t = await createTenant(handle.db);
    expect(await revokeApiKey(handle.db, t.keyId)).toBe(true);
    expect(isAllowed(await authorize(authorizerEvent(`Bearer ${t.token}`)))).toBe(false);
  });

  it('denies an expired key', async () => {
    const t = await createTenant(handle.db, { expiresAt: new Date(Date.now() - 1000) });
    expect(isAllowed(await authorize(authorizerEvent(`Bearer ${t.token}`)))).toBe(false);
  });

  it('stores no token in plain text, only its SHA-256', async () => {
    const rows = rowsOf<Record<string, unknown>>(await handle.db.execute(sql`select * from api_keys`));
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(tenant.token);
    expect(dump).not.toContain(tenant.token.slice(4));
  });

  describe('when the database is unreachable', () => {
    let down: DatabaseHandle;
    beforeAll(async () => {
      // A port nothing listens on: connection refused, as during a failover.
      down = await openDatabase({ kind: 'postgres', url: 'postgres://nobody@127.0.0.1:1/none' });
    });
    afterAll(() => down.close());

    it('lets the request through marked deferred, carrying no identity', async () => {
      const result = await build({ database: down, logger: silentLogger })(
        authorizerEvent(`Bearer ${tenant.token}`),
      );
      expect(result).toEqual({
        principalId: 'deferred',
        policyDocument: policy('Allow'),
        context: { deferred: 'database-unavailable' },
        // A usage key all the same: without one API Gateway answers its own error, never the 503.
        usageIdentifierKey: deferredUsageKeyValue('local'),
      });
    });

    it('then the handler answers 503 with Retry-After, not data', async () => {
      const listSessions = buildListSessions({ database: down, logger: silentLogger });
      const event = apiEvent({ path: '/sessions', caller: tenant });
      event.requestContext.authorizer = authorizerContext({ deferred: 'database-unavailable' });
      const result = await listSessions(event);
      expectProblem(result, 503);
      expect(result.headers['retry-after']).toBe('5');
    });

    it('and once the database answers, the handler authenticates the request itself', async () => {
      const listSessions = buildListSessions({ database: handle, logger: silentLogger });
      const deferred = (authorization: string) => {
        const event = apiEvent({ path: '/sessions', caller: tenant, headers: { authorization } });
        event.requestContext.authorizer = authorizerContext({ deferred: 'database-unavailable' });
        return listSessions(event);
      };
      expect((await deferred(`Bearer ${tenant.token}`)).statusCode).toBe(200);
      // As the authorizer's deny reaches the client: 403 invalid-key (it used to be a 401 here).
      expectProblem(await deferred(`Bearer vak_${'B'.repeat(43)}`), 403);
    });
  });
});
