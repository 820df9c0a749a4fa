import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, AgentVersion, AgentVersionList } from '#contract/schemas/agent.ts';
import type { DatabaseHandle } from '#db/client.ts';
import { build as buildGetAgent } from '#functions/agents/get.ts';
import { encodeCursor } from '#functions/http/cursor.ts';
import { silentLogger } from '#functions/http/log.ts';
import { listRequest } from '#functions/http/pagination.ts';
import { build as buildGet } from '#functions/versions/get.ts';
import { build as buildList } from '#functions/versions/list.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { apiEvent } from '#test/helpers/events.ts';
import { insertAgent } from '#test/helpers/fixtures.ts';
import { bodyOf, expectProblem } from '#test/helpers/responses.ts';
import { createTenant, type Tenant } from '#test/helpers/tenants.ts';

const LIST = '/agents/{agentId}/versions';
const ONE = '/agents/{agentId}/versions/{versionId}';
const NO_AGENT = {
  type: 'https://voice-agent-admin.dev/problems/resource-not-found',
  title: 'Not Found',
  status: 404,
  detail: 'No agent with this id in this workspace.',
};
const NO_VERSION = { ...NO_AGENT, detail: 'No version with this id in this workspace.' };
const withoutRequestId = ({ requestId: _, ...rest }: { requestId: string }) => rest;

describe('GET /agents/{agentId}/versions and GET /agents/{agentId}/versions/{versionId}', () => {
  let handle: DatabaseHandle;
  let listVersions: ReturnType<typeof buildList>;
  let getVersion: ReturnType<typeof buildGet>;
  let getAgent: ReturnType<typeof buildGetAgent>;
  let tenant: Tenant;
  let other: Tenant;
  let agent: { agentId: string; versionIds: string[] };
  let sibling: { agentId: string; versionIds: string[] };
  let theirs: { agentId: string; versionIds: string[] };

  beforeAll(async () => {
    handle = await freshDatabase();
    const deps = { database: handle, logger: silentLogger };
    listVersions = buildList(deps);
    getVersion = buildGet(deps);
    getAgent = buildGetAgent(deps);
    tenant = await createTenant(handle.db);
    other = await createTenant(handle.db);
    agent = await insertAgent(handle.db, tenant, { n: 1, versions: 5 });
    sibling = await insertAgent(handle.db, tenant, { n: 2, versions: 2 });
    theirs = await insertAgent(handle.db, other, { n: 3, versions: 2 });
    // Every version of the agent in one millisecond, ids against the numbers: only the numbers order them.
    await handle.db.execute(
      sql`update agent_versions set created_at = '2026-11-01T09:00:00.000Z' where agent_id = ${agent.agentId}`,
    );
  });
  afterAll(() => handle.close());

  const list = (agentId: string, init: { caller?: Tenant; query?: string; scopes?: string } = {}) =>
    listVersions(
      apiEvent({
        path: `/agents/${encodeURIComponent(agentId)}/versions`,
        resource: LIST,
        pathParameters: { agentId },
        caller: init.caller ?? tenant,
        query: init.query,
        scopes: init.scopes,
      }),
    );
  const one = (
    agentId: string,
    versionId: string,
    init: { caller?: Tenant; query?: string; scopes?: string } = {},
  ) =>
    getVersion(
      apiEvent({
        path: `/agents/${encodeURIComponent(agentId)}/versions/${encodeURIComponent(versionId)}`,
        resource: ONE,
        pathParameters: { agentId, versionId },
        caller: init.caller ?? tenant,
        query: init.query,
        scopes: init.scopes,
      }),
    );
  const numbers = (versions: AgentVersion[]) => versions.map((v) => v.version);
  const nextOf = (link: string | undefined) => {
    const target = /^<([^>]+)>; rel="next"$/.exec(link ?? '')?.[1];
    return target ? new URL(target, 'https://api.test').searchParams.toString() : undefined;
  };

  it('lists the versions newest (highest number) first, each the shape an agent embeds, no-store', async () => {
    const result = await list(agent.agentId);
    expect(result.statusCode).toBe(200);
    expect(result.headers).toMatchObject({
      'content-type': 'application/json',
      'cache-control': 'no-store',
      'x-request-id': expect.any(String),
    });
    expect(result.headers.link).toBeUndefined();
    const versions = bodyOf(AgentVersionList, result);
    expect(numbers(versions)).toEqual([5, 4, 3, 2, 1]);
    expect(versions.map((v) => v.id)).toEqual([...agent.versionIds].reverse());
    expect(versions.every((v) => v.agentId === agent.agentId && v.workspaceId === tenant.workspaceId)).toBe(
      true,
    );
    expect(versions[4]).toMatchObject({ systemPrompt: 'prompt v1', sourceAgentVersionId: null });
    // The newest is exactly the version the agent embeds.
    const embedded = bodyOf(
      Agent,
      await getAgent(
        apiEvent({ path: `/agents/${agent.agentId}`, resource: '/agents/{agentId}', caller: tenant }),
      ),
    ).version;
    expect(versions[0]).toEqual(embedded);
  });

  it('pages by offset with Link rel="next", oldest first with order=asc, and counts with includeTotal', async () => {
    const first = await list(agent.agentId, { query: 'limit=2&includeTotal=true' });
    expect(numbers(bodyOf(AgentVersionList, first))).toEqual([5, 4]);
    expect(first.headers['x-total-count']).toBe('5');
    expect(nextOf(first.headers.link)).toBe('limit=2&includeTotal=true&offset=2');
    const last = await list(agent.agentId, { query: 'limit=2&offset=4' });
    expect(numbers(bodyOf(AgentVersionList, last))).toEqual([1]);
    expect(last.headers.link).toBeUndefined();
    expect(
      numbers(bodyOf(AgentVersionList, await list(agent.agentId, { query: 'order=asc&limit=3' }))),
    ).toEqual([1, 2, 3]);
    const beyond = await list(agent.agentId, { query: 'offset=10&includeTotal=true' });
    expect(bodyOf(AgentVersionList, beyond)).toEqual([]);
    expect(beyond.headers['x-total-count']).toBe('5');
  });

  it.each([
    ['desc', [5, 4, 3, 2, 1]],
    ['asc', [1, 2, 3, 4, 5]],
  ])(
    'pages through every version once by cursor (%s), though they share a millisecond',
    async (order, expected) => {
      const seen: number[] = [];
      let query: string | undefined = `cursor=&limit=2&order=${order}`;
      while (query !== undefined) {
        const result = await list(agent.agentId, { query });
        expect(result.statusCode).toBe(200);
        seen.push(...numbers(bodyOf(AgentVersionList, result)));
        query = nextOf(result.headers.link);
        if (query) expect(query).toMatch(/cursor=[\w-]+\.[\w-]+/);
      }
      expect(seen).toEqual(expected);
    },
  );

  it("refuses another agent's cursor, another order's, an altered one, and cursor with offset (400 naming cursor)", async () => {
    const link = (await list(agent.agentId, { query: 'cursor=&limit=1' })).headers.link;
    const cursor = new URLSearchParams(nextOf(link)).get('cursor') ?? '';
    expect((await list(agent.agentId, { query: `cursor=${cursor}&limit=1` })).statusCode).toBe(200);
    expectProblem(await list(sibling.agentId, { query: `cursor=${cursor}` }), 400, ['cursor']);
    expectProblem(await list(agent.agentId, { query: `cursor=${cursor}&order=asc` }), 400, ['cursor']);
    const tampered = `${cursor.slice(0, 5)}${cursor[5] === 'A' ? 'B' : 'A'}${cursor.slice(6)}`;
    expectProblem(await list(agent.agentId, { query: `cursor=${tampered}` }), 400, ['cursor']);
    expectProblem(await list(agent.agentId, { query: 'cursor=&offset=1' }), 400, ['cursor']);
  });

  it("starts nowhere from a well-formed cursor naming no version of the agent (an empty page, no other agent's)", async () => {
    const binding = listRequest(
      { limit: 25, order: 'desc' },
      `agents/${agent.agentId}/versions`,
      tenant.workspaceId,
    ).binding;
    const [theirVersion] = theirs.versionIds as [string];
    for (const id of [theirVersion, sibling.versionIds[0] as string, 'zzzzzzzzzzzz']) {
      const cursor = encodeCursor({ createdAt: '2026-11-01T09:00:00.000Z', id }, binding);
      const result = await list(agent.agentId, { query: `cursor=${cursor}` });
      expect(bodyOf(AgentVersionList, result)).toEqual([]);
      expect(result.headers.link).toBeUndefined();
    }
  });

  it('refuses bad paging and unknown parameters, each named (400)', async () => {
    expectProblem(await list(agent.agentId, { query: 'limit=0' }), 400, ['limit']);
    expectProblem(await list(agent.agentId, { query: 'limit=251&order=sideways' }), 400, ['limit', 'order']);
    expectProblem(await list(agent.agentId, { query: 'status=DRAFT' }), 400, ['status']);
  });

  it("404s another workspace's agent exactly as an unknown one, and an id that cannot be one", async () => {
    expect(withoutRequestId(expectProblem(await list(theirs.agentId), 404))).toEqual(NO_AGENT);
    expect(withoutRequestId(expectProblem(await list('zzzzzzzzzzzzzzzzzzzzzzzz'), 404))).toEqual(NO_AGENT);
    expect(withoutRequestId(expectProblem(await list('NOT-AN-ID'), 404))).toEqual(NO_AGENT);
    expect(numbers(bodyOf(AgentVersionList, await list(theirs.agentId, { caller: other })))).toEqual([2, 1]);
  });

  it('needs agents:read (403 naming it)', async () => {
    expect(
      expectProblem(await list(agent.agentId, { scopes: 'sessions:read agents:write' }), 403).detail,
    ).toMatch(/agents:read/);
    expect(
      expectProblem(await one(agent.agentId, agent.versionIds[0] as string, { scopes: 'sessions:read' }), 403)
        .detail,
    ).toMatch(/agents:read/);
  });

  it('reads one version exactly as it is listed', async () => {
    const listed = bodyOf(AgentVersionList, await list(agent.agentId));
    for (const version of listed) {
      const result = await one(agent.agentId, version.id);
      expect(result.statusCode).toBe(200);
      expect(result.headers).toMatchObject({
        'content-type': 'application/json',
        'cache-control': 'no-store',
      });
      expect(bodyOf(AgentVersion, result)).toEqual(version);
    }
  });

  it("404s a version of another agent as no version, and an agent not the workspace's as no agent", async () => {
    const [siblingVersion] = sibling.versionIds as [string];
    const [theirVersion] = theirs.versionIds as [string];
    const [ours] = agent.versionIds as [string];
    expect(withoutRequestId(expectProblem(await one(agent.agentId, siblingVersion), 404))).toEqual(
      NO_VERSION,
    );
    expect(withoutRequestId(expectProblem(await one(agent.agentId, theirVersion), 404))).toEqual(NO_VERSION);
    expect(withoutRequestId(expectProblem(await one(agent.agentId, 'zzzzzzzzzzzz'), 404))).toEqual(
      NO_VERSION,
    );
    expect(withoutRequestId(expectProblem(await one(agent.agentId, 'Bad Id'), 404))).toEqual(NO_VERSION);
    expect(withoutRequestId(expectProblem(await one(theirs.agentId, theirVersion), 404))).toEqual(NO_AGENT);
    expect(withoutRequestId(expectProblem(await one('zzzzzzzz', ours), 404))).toEqual(NO_AGENT);
    expect((await one(theirs.agentId, theirVersion, { caller: other })).statusCode).toBe(200);
  });

  it('refuses a query parameter on one version (400 naming it)', async () => {
    expectProblem(await one(agent.agentId, agent.versionIds[0] as string, { query: 'expand=agent' }), 400, [
      'expand',
    ]);
  });
});
