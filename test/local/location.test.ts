import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '#db/client.ts';
import { build as buildCreateAgent } from '#functions/agents/create.ts';
import { silentLogger } from '#functions/http/log.ts';
import { type Gateway, startGateway } from '#infra/local/gateway.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { apiEvent } from '#test/helpers/events.ts';
import { createTenant, type Tenant } from '#test/helpers/tenants.ts';

let database: DatabaseHandle;
let gateway: Gateway;
let tenant: Tenant;

beforeAll(async () => {
  database = await freshDatabase();
  tenant = await createTenant(database.db);
  gateway = await startGateway({ deps: { database, logger: silentLogger } });
});

afterAll(async () => {
  await gateway?.close();
  await database?.close();
});

const call = (url: string, init: RequestInit = {}) => {
  const headers = new Headers(init.headers);
  headers.set('authorization', `Bearer ${tenant.token}`);
  if (init.body) headers.set('content-type', 'application/json');
  return fetch(url.startsWith('http') ? url : `${gateway.url}${url}`, { ...init, headers });
};

/** A 201's Location must be the collection's URL plus the new id, and read back the very resource. */
async function expectLocationReadsBack(res: Response, collection: string) {
  expect(res.status).toBe(201);
  const created = (await res.json()) as { id: string };
  const location = res.headers.get('location');
  expect(location).toBe(`${gateway.url}${collection}/${created.id}`);
  const read = await call(location as string);
  expect(read.status).toBe(200);
  expect(((await read.json()) as { id: string }).id).toBe(created.id);
  return created;
}

describe('Location on every 201, through the local gateway', () => {
  it('POST /agents, POST /agents/{agentId}/versions and POST /sessions each point at what they created, replays included', async () => {
    const agent = await expectLocationReadsBack(
      await call('/agents', { method: 'POST', body: JSON.stringify({ name: 'Located' }) }),
      '/agents',
    );
    const etag = (await call(`/agents/${agent.id}`)).headers.get('etag') as string;
    const draft = await call(`/agents/${agent.id}/versions`, {
      method: 'POST',
      headers: { 'if-match': etag },
      body: JSON.stringify({ systemPrompt: 'v2' }),
    });
    const version = await expectLocationReadsBack(draft, `/agents/${agent.id}/versions`);
    const published = await call(`/agents/${agent.id}/publish`, {
      method: 'POST',
      body: JSON.stringify({ versionId: version.id }),
    });
    expect(published.status).toBe(200);
    expect(published.headers.get('location')).toBeNull();

    const createSession = () =>
      call('/sessions', {
        method: 'POST',
        headers: { 'idempotency-key': 'location-test-1' },
        body: JSON.stringify({
          agentId: agent.id,
          type: 'WEB_VOICE',
          person: { email: 'caller@example.com' },
        }),
      });
    const first = await createSession();
    const firstLocation = first.headers.get('location');
    await expectLocationReadsBack(first, '/sessions');
    const replay = await createSession();
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.headers.get('location')).toBe(firstLocation);
  });

  it('keeps the base path the client called (a stage, a custom domain mapping) and the API domain, never Host', async () => {
    const createAgent = buildCreateAgent({ database, logger: silentLogger });
    const event = apiEvent({ method: 'POST', path: '/agents', body: { name: 'Mapped' }, caller: tenant });
    event.headers.host = 'attacker.example';
    event.requestContext.domainName = 'api.example.com';
    event.requestContext.path = '/v1/agents';
    const res = await createAgent(event);
    expect(res.statusCode).toBe(201);
    const { id } = JSON.parse(res.body) as { id: string };
    expect(res.headers?.location).toBe(`https://api.example.com/v1/agents/${id}`);
  });
});
