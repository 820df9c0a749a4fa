import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, AgentList } from '#contract/schemas/agent.ts';
import type { DatabaseHandle } from '#db/client.ts';
import { build as buildCreate } from '#functions/agents/create.ts';
import { build } from '#functions/agents/get.ts';
import { build as buildList } from '#functions/agents/list.ts';
import { silentLogger } from '#functions/http/log.ts';
import { type Gateway, startGateway } from '#infra/local/gateway.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { apiEvent } from '#test/helpers/events.ts';
import { insertAgent } from '#test/helpers/fixtures.ts';
import { agentEtag, bodyOf, expectProblem } from '#test/helpers/responses.ts';
import { createTenant, type Tenant } from '#test/helpers/tenants.ts';

const RESOURCE = '/agents/{agentId}';

describe('GET /agents/{agentId}', () => {
  let handle: DatabaseHandle;
  let getAgent: ReturnType<typeof build>;
  let listAgents: ReturnType<typeof buildList>;
  let tenant: Tenant;
  let other: Tenant;
  let agentId: string;
  let othersAgentId: string;

  beforeAll(async () => {
    handle = await freshDatabase();
    const deps = { database: handle, logger: silentLogger };
    getAgent = build(deps);
    listAgents = buildList(deps);
    tenant = await createTenant(handle.db);
    other = await createTenant(handle.db);
    agentId = (await insertAgent(handle.db, tenant, { n: 1, versions: 3 })).agentId;
    othersAgentId = (await insertAgent(handle.db, other, { n: 2 })).agentId;
  });
  afterAll(() => handle.close());

  const get = (
    id: string,
    init: { caller?: Tenant; query?: string; scopes?: string; headers?: Record<string, string> } = {},
  ) =>
    getAgent(
      apiEvent({
        path: `/agents/${encodeURIComponent(id)}`,
        resource: RESOURCE,
        pathParameters: { agentId: id },
        caller: init.caller ?? tenant,
        query: init.query,
        scopes: init.scopes,
        headers: init.headers,
      }),
    );
  const touch = (id: string, updatedAt: string) =>
    handle.db.execute(sql`update agents set updated_at = ${updatedAt}::timestamptz where id = ${id}`);

  it('answers the agent exactly as its list item, with its latest version, an ETag and no-store', async () => {
    const result = await get(agentId);
    expect(result.statusCode).toBe(200);
    expect(result.headers).toMatchObject({
      'content-type': 'application/json',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'x-request-id': expect.any(String),
    });
    const agent = bodyOf(Agent, result);
    const listed = bodyOf(AgentList, await listAgents(apiEvent({ path: '/agents', caller: tenant })));
    expect(listed).toEqual([agent]);
    expect(agent).toMatchObject({ id: agentId, workspaceId: tenant.workspaceId, name: 'Agent 1' });
    expect(agent.version).toMatchObject({ agentId, version: 3, systemPrompt: 'prompt v3' });
    expect(result.headers.etag).toBe(`"${agentId}.${Date.parse(agent.updatedAt)}"`);
    expect(result.headers.etag).toBe(agentEtag(agent));
  });

  it('answers a created agent exactly as POST /agents answered it', async () => {
    const t = await createTenant(handle.db);
    const created = await buildCreate({ database: handle, logger: silentLogger })(
      apiEvent({ method: 'POST', path: '/agents', caller: t, body: { name: 'Read Back' } }),
    );
    const agent = bodyOf(Agent, created);
    const result = await get(agent.id, { caller: t });
    expect(bodyOf(Agent, result)).toEqual(agent);
    expect(result.headers.etag).toBe(agentEtag(agent));
    // The 201 carries the ETag a GET answers.
    expect(created.headers.etag).toBe(result.headers.etag);
  });

  it('writes one JSON formatting: a list item is the single GET and the 201, byte for byte', async () => {
    const t = await createTenant(handle.db);
    const created = await buildCreate({ database: handle, logger: silentLogger })(
      apiEvent({
        method: 'POST',
        path: '/agents',
        caller: t,
        body: {
          name: 'Bytes',
          version: { config: { llm: { provider: 'LLM_PROVIDER_1', temperature: 0.5 } } },
        },
      }),
    );
    const { id } = bodyOf(Agent, created);
    const single = (await get(id, { caller: t })).body;
    const listed = (await listAgents(apiEvent({ path: '/agents', caller: t }))).body;
    expect(listed).toBe(`[${single}]`);
    expect(single).toBe(created.body);
    // Compact around the fields; the stored `config` as jsonb writes it.
    expect(single).toMatch(/^\{"id":"[^"]+","createdAt":"/);
    expect(single).toContain(
      '"config":{"llm": {"model": "LLM_MODEL_1A", "provider": "LLM_PROVIDER_1", "temperature": 0.5}}',
    );
  });

  it('answers 304 with the ETag and no body when If-None-Match names the current ETag (weak comparison), or is *', async () => {
    const { agentId: id } = await insertAgent(handle.db, tenant, { n: 7 });
    const etag = (await get(id)).headers.etag as string;
    for (const value of [etag, `W/${etag}`, `"other", ${etag}`, ` "a" , W/${etag} ,`, '*']) {
      const result = await get(id, { headers: { 'if-none-match': value } });
      expect(result).toEqual({
        statusCode: 304,
        headers: {
          'x-request-id': result.headers['x-request-id'],
          'cache-control': 'no-store',
          'x-content-type-options': 'nosniff',
          etag,
        },
        body: '',
      });
    }
    // Another tag, a malformed list, or the agent changed since: the full answer.
    for (const value of ['"other"', 'not-a-tag', `${etag.slice(0, -2)}"`]) {
      const result = await get(id, { headers: { 'if-none-match': value } });
      expect(result.statusCode).toBe(200);
      expect(bodyOf(Agent, result).id).toBe(id);
    }
    await touch(id, '2026-11-02T11:00:00.000Z');
    const changed = await get(id, { headers: { 'if-none-match': etag } });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
    // Not this workspace's: a 404 still, whatever the condition.
    expectProblem(await get(othersAgentId, { headers: { 'if-none-match': '*' } }), 404);
  });

  it('changes the ETag when the agent changes, computed in SQL as agentEtag computes it (ms cut down)', async () => {
    const { agentId: id } = await insertAgent(handle.db, tenant, { n: 3 });
    await touch(id, '2026-11-02T10:00:00.123456Z');
    const before = await get(id);
    expect(before.headers.etag).toBe(`"${id}.${Date.parse('2026-11-02T10:00:00.123Z')}"`);
    expect(bodyOf(Agent, before).updatedAt).toBe('2026-11-02T10:00:00.123Z');
    expect(await get(id)).toMatchObject({ headers: { etag: before.headers.etag } });
    await touch(id, '2026-11-02T10:00:00.124001Z');
    const after = await get(id);
    expect(after.headers.etag).toBe(`"${id}.${Date.parse('2026-11-02T10:00:00.124Z')}"`);
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect(after.headers.etag).toBe(agentEtag(bodyOf(Agent, after)));
  });

  it("404s another workspace's agent exactly as an unknown id: nothing reveals that it exists", async () => {
    const theirs = expectProblem(await get(othersAgentId), 404);
    const unknown = expectProblem(await get('zzzzzzzzzzzzzzzzzzzzzzzz'), 404);
    const { requestId: _a, ...theirsBody } = theirs;
    const { requestId: _b, ...unknownBody } = unknown;
    expect(theirsBody).toEqual(unknownBody);
    expect(theirsBody).toEqual({
      type: 'https://voice-agent-admin.dev/problems/resource-not-found',
      title: 'Not Found',
      status: 404,
      detail: 'No agent with this id in this workspace.',
    });
    // The owner reads it.
    expect((await get(othersAgentId, { caller: other })).statusCode).toBe(200);
  });

  it.each([
    ['upper case', 'ABCDEFGHIJKLMNOPQRSTUVWX'],
    ['longer than 24 characters', 'a'.repeat(25)],
    ['a leading digit', '1abcdefghij'],
    ['punctuation', "a'; select 1 --"],
    ['a replacement character', 'ab\uFFFDcd'],
    ['empty', ''],
  ])('404s an id that cannot be one (%s), as an unknown one', async (_, id) => {
    expect(expectProblem(await get(id), 404).detail).toBe('No agent with this id in this workspace.');
  });

  it('404s when the event carries no path parameters at all', async () => {
    const result = await getAgent(apiEvent({ path: '/agents/x', pathParameters: null, caller: tenant }));
    expectProblem(result, 404);
  });

  it('refuses a query parameter (it takes none) with a 400 naming it', async () => {
    expectProblem(await get(agentId, { query: 'expand=version' }), 400, ['expand']);
  });

  it('needs agents:read: 403 with the scope named', async () => {
    const result = await get(agentId, { scopes: 'sessions:read agents:write' });
    expect(expectProblem(result, 403).detail).toMatch(/agents:read/);
  });

  it('401s a request without an authorizer context', async () => {
    const result = await getAgent(apiEvent({ path: `/agents/${agentId}`, resource: RESOURCE, caller: null }));
    expectProblem(result, 401);
  });
});

describe('GET /agents/{agentId} through the local gateway', () => {
  let handle: DatabaseHandle;
  let gateway: Gateway;
  let tenant: Tenant;
  let agentIds: string[];

  beforeAll(async () => {
    handle = await freshDatabase();
    tenant = await createTenant(handle.db);
    agentIds = [
      (await insertAgent(handle.db, tenant, { n: 1 })).agentId,
      (await insertAgent(handle.db, tenant, { n: 2 })).agentId,
    ];
    gateway = await startGateway({ deps: { database: handle, logger: silentLogger } });
  });
  afterAll(async () => {
    await gateway?.close();
    await handle?.close();
  });

  const call = (path: string, token: string | null = tenant.token) =>
    fetch(`${gateway.url}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });

  it('answers each agent, the authorizer answer cached on the first path allowing the others', async () => {
    for (const id of agentIds) {
      const res = await call(`/agents/${id}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('etag')).toMatch(new RegExp(`^"${id}\\.\\d+"$`));
      expect(bodyOf(Agent, { body: await res.text() } as never).id).toBe(id);
    }
  });

  it('decodes the parameter once: an encoded id reads the agent, an encoded slash is no id (404)', async () => {
    const [id] = agentIds as [string];
    const encoded = [...id].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('');
    expect((await call(`/agents/${encoded}`)).status).toBe(200);
    const slash = await call(`/agents/${id}%2Fx`);
    expect(slash.status).toBe(404);
    expect(slash.headers.get('content-type')).toBe('application/problem+json');
    expect(((await slash.json()) as { type: string }).type).toBe(
      'https://voice-agent-admin.dev/problems/resource-not-found',
    );
  });

  it('401 without a token, as every route; a trailing segment or slash is no route (the gateway 404)', async () => {
    expect((await call(`/agents/${agentIds[0]}`, null)).status).toBe(401);
    for (const path of [`/agents/${agentIds[0]}/nothing`, '/agents/', `/agents/${agentIds[0]}/`]) {
      const res = await call(path);
      expect(res.status).toBe(404);
      expect(((await res.json()) as { type: string }).type).toBe(
        'https://voice-agent-admin.dev/problems/not-found',
      );
    }
  });
});
