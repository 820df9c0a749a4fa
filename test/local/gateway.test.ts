import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '#db/client.ts';
import { generateToken } from '#db/queries/api-keys.ts';
import { silentLogger } from '#functions/http/log.ts';
import { type Gateway, startGateway } from '#infra/local/gateway.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { literalGatewayBody } from '#test/helpers/gateway-answers.ts';
import { createTenant, type Tenant } from '#test/helpers/tenants.ts';

let database: DatabaseHandle;
let gateway: Gateway;
let tenant: Tenant;

beforeAll(async () => {
  database = await freshDatabase();
  tenant = await createTenant(database.db);
  gateway = await startGateway({ deps: { database: database, logger: silentLogger } });
});

afterAll(async () => {
  await gateway?.close();
  await database?.close();
});

const call = (path: string, init: RequestInit & { token?: string | null } = {}) => {
  const { token = tenant.token, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (token !== null) headers.set('authorization', `Bearer ${token}`);
  return fetch(`${gateway.url}${path}`, { ...rest, headers });
};

/**
 * API Gateway's own answer as the gateway responses shape it: exact bytes, a problem with the
 * security headers and its request id.
 */
async function expectGatewayAnswer(res: Response, status: 401 | 403 | 404 | 413) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toBe('application/problem+json');
  const requestId = res.headers.get('x-amzn-requestid') ?? '';
  expect(requestId).toMatch(/^[A-Za-z0-9+/]{15}=$/);
  expect(res.headers.get('x-request-id')).toBe(requestId);
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  expect(await res.text()).toBe(literalGatewayBody(status, requestId));
}

describe('routes through the local gateway', () => {
  it('creates an agent: 201 with its JSON', async () => {
    const res = await call('/agents', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Front desk' }),
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.json()).toMatchObject({ name: 'Front desk', slug: 'front-desk' });
  });

  it('lists agents: 200 with a JSON array', async () => {
    const res = await call('/agents');
    expect(res.status).toBe(200);
    const body = (await res.json()) as Array<{ name: string }>;
    expect(Array.isArray(body)).toBe(true);
    expect(body.map((a) => a.name)).toContain('Front desk');
  });

  it('lists sessions: 200 with a JSON array', async () => {
    const res = await call('/sessions');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe(String((await res.clone().arrayBuffer()).byteLength));
    expect(await res.json()).toEqual([]);
  });

  it('gives every answer an x-amzn-requestid, the handler’s x-request-id', async () => {
    const res = await call('/sessions');
    const id = res.headers.get('x-amzn-requestid');
    expect(id).toBeTruthy();
    expect(res.headers.get('x-request-id')).toBe(id);
  });

  it('builds a next link that leads back through the gateway', async () => {
    await call('/agents', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Night shift' }),
    });
    const first = await call('/agents?limit=1');
    const link = /^<([^>]+)>; rel="next"$/.exec(first.headers.get('link') ?? '')?.[1];
    expect(link?.startsWith(`${gateway.url}/agents?`)).toBe(true);
    const next = await fetch(link as string, { headers: { authorization: `Bearer ${tenant.token}` } });
    expect(next.status).toBe(200);
    expect(await next.json()).toHaveLength(1);
  });

  it('passes the raw query string: a repeated parameter reaches the handler (400)', async () => {
    const res = await call('/sessions?limit=1&limit=2');
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(await res.json()).toMatchObject({ status: 400, errors: [{ path: 'limit' }] });
  });

  it('hands the authorizer context to the handler: a missing scope is the handler’s 403', async () => {
    const reader = await createTenant(database.db, { scopes: ['sessions:read'] });
    expect((await call('/sessions', { token: reader.token })).status).toBe(200);
    const res = await call('/agents', { token: reader.token });
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
  });
});

describe('API Gateway’s own answers', () => {
  it('404 for an unknown path', async () => {
    await expectGatewayAnswer(await call('/nothing-here'), 404);
  });

  it('404 for a known path with the wrong method, before any authorization', async () => {
    await expectGatewayAnswer(await call('/sessions', { method: 'PUT', body: '{}' }), 404);
    await expectGatewayAnswer(await call('/agents', { method: 'DELETE', token: null }), 404);
  });

  it('401 without an Authorization header, or with an empty one', async () => {
    await expectGatewayAnswer(await call('/sessions', { token: null }), 401);
    expect((await call('/sessions', { token: null })).headers.get('www-authenticate')).toBe('Bearer');
    const empty = await fetch(`${gateway.url}/sessions`, { headers: { authorization: '' } });
    await expectGatewayAnswer(empty, 401);
  });

  it('403 when the authorizer denies: unknown or malformed token', async () => {
    await expectGatewayAnswer(await call('/sessions', { token: generateToken() }), 403);
    await expectGatewayAnswer(await call('/agents', { token: 'not-a-token' }), 403);
  });

  it('413 for a body over 10 MB, without reaching the handler', async () => {
    const res = await call('/agents', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: Buffer.alloc(10 * 1024 * 1024 + 1, 0x20),
    });
    await expectGatewayAnswer(res, 413);
  });
});

describe('close', () => {
  it('resolves promptly while a client holds a keep-alive connection, then refuses connections', async () => {
    const local = await startGateway({ deps: { database: database, logger: silentLogger } });
    const res = await fetch(`${local.url}/sessions`, {
      headers: { authorization: `Bearer ${tenant.token}` },
    });
    expect(res.headers.get('connection')).toBe('keep-alive');
    await res.arrayBuffer();
    const started = Date.now();
    await local.close();
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(local.server.listening).toBe(false);
    await expect(fetch(`${local.url}/sessions`)).rejects.toThrow();
  });
});
