import { createId } from '@paralleldrive/cuid2';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, AgentList } from '#contract/schemas/agent.ts';
import type { DatabaseHandle } from '#db/client.ts';
import { build as buildCreate } from '#functions/agents/create.ts';
import { build } from '#functions/agents/list.ts';
import { silentLogger } from '#functions/http/log.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { apiEvent } from '#test/helpers/events.ts';
import { insertAgent } from '#test/helpers/fixtures.ts';
import { bodyOf, expectProblem } from '#test/helpers/responses.ts';
import { createTenant, type Tenant } from '#test/helpers/tenants.ts';

describe('GET /agents', () => {
  let handle: DatabaseHandle;
  let listAgents: ReturnType<typeof build>;
  let tenant: Tenant;
  let other: Tenant;
  const ids: string[] = [];

  beforeAll(async () => {
    handle = await freshDatabase();
    listAgents = build({ database: handle, logger: silentLogger });
    tenant = await createTenant(handle.db);
    other = await createTenant(handle.db);
    for (let n = 1; n <= 3; n++) ids.push((await insertAgent(handle.db, tenant, { n, versions: n })).agentId);
    await insertAgent(handle.db, other, { n: 9 });
  });
  afterAll(() => handle.close());

  const list = (query = '', caller: Tenant = tenant) =>
    listAgents(apiEvent({ path: '/agents', query, caller }));

  it('lists the workspace agents newest first, each with its latest version', async () => {
    const agents = bodyOf(AgentList, await list());
    expect(agents.map((a) => a.id)).toEqual([...ids].reverse());
    expect(agents.map((a) => a.version.version)).toEqual([3, 2, 1]);
    expect(agents[0]?.version).toMatchObject({ agentId: ids[2], systemPrompt: 'prompt v3' });
  });

  it('orders agents created in the same millisecond by id, descending, stably', async () => {
    const t = await createTenant(handle.db);
    await insertAgent(handle.db, t, { n: 1 });
    await insertAgent(handle.db, t, { n: 1 });
    await insertAgent(handle.db, t, { n: 1 });
    const all = bodyOf(AgentList, await list('', t)).map((a) => a.id);
    expect(all).toEqual([...all].sort().reverse());
    const paged = [
      ...bodyOf(AgentList, await list('limit=1', t)),
      ...bodyOf(AgentList, await list('limit=1&offset=1', t)),
      ...bodyOf(AgentList, await list('limit=1&offset=2', t)),
    ].map((a) => a.id);
    expect(paged).toEqual(all);
  });

  it('returns a created agent exactly as POST /agents answered it', async () => {
    const t = await createTenant(handle.db);
    const create = buildCreate({ database: handle, logger: silentLogger });
    const created = await create(
      apiEvent({
        method: 'POST',
        path: '/agents',
        caller: t,
        body: {
          name: 'Roundtrip',
          version: { config: { stt: { provider: 'STT_PROVIDER_1', model: 'STT_MODEL_1A' } } },
        },
      }),
    );
    const listed = bodyOf(AgentList, await list('', t));
    expect(listed).toEqual([bodyOf(Agent, created)]);
  });

  it('links the next page while one exists, keeping the other parameters', async () => {
    const first = await list('limit=2');
    expect(bodyOf(AgentList, first)).toHaveLength(2);
    expect(first.headers.link).toBe('<https://api.test/agents?limit=2&offset=2>; rel="next"');
    const second = await list('offset=2&limit=2');
    expect(bodyOf(AgentList, second).map((a) => a.id)).toEqual([ids[0]]);
    expect(second.headers.link).toBeUndefined();
  });

  it("never shows another workspace's agents", async () => {
    const theirs = bodyOf(AgentList, await list('', other));
    expect(theirs.map((a) => a.workspaceId)).toEqual([other.workspaceId]);
  });

  it('defaults to 25 items per page', async () => {
    const t = await createTenant(handle.db);
    const values = Array.from(
      { length: 30 },
      (_, i) => sql`(${createId()}, ${t.workspaceId}, ${`A${i}`}, ${`a${i}`})`,
    );
    await handle.db.execute(
      sql`insert into agents (id, workspace_id, name, slug) values ${sql.join(values, sql`, `)}`,
    );
    // Agents without versions cannot exist through the API; give each one.
    await handle.db.execute(sql`insert into agent_versions (id, agent_id, version, workspace_id, theme_id)
      select 'v' || substr(md5(id), 1, 23), id, 1, workspace_id, ${t.themeId} from agents where workspace_id = ${t.workspaceId}`);
    const page = await list('', t);
    expect(bodyOf(AgentList, page)).toHaveLength(25);
    expect(page.headers.link).toBe('<https://api.test/agents?limit=25&offset=25>; rel="next"');
  });

  it.each([['limit=251'], ['limit=0'], ['offset=-5'], ['offset=x'], ['offset=1&offset=2']])(
    'rejects %s with a 400 problem',
    async (query) => {
      expectProblem(await list(query), 400);
    },
  );

  it('requires the agents:read scope', async () => {
    expectProblem(
      await listAgents(apiEvent({ path: '/agents', caller: tenant, scopes: 'sessions:read' })),
      403,
    );
  });
});
