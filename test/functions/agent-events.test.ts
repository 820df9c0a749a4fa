import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, AgentVersion } from '#contract/schemas/agent.ts';
import { type Event, EventList } from '#contract/schemas/event.ts';
import type { DatabaseHandle } from '#db/client.ts';
import { rowsOf } from '#db/queries/rows.ts';
import { silentLogger } from '#functions/http/log.ts';
import { type App, buildApp, checkAnswer } from '#test/hardening/support/app.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { apiEvent } from '#test/helpers/events.ts';
import { insertAgent } from '#test/helpers/fixtures.ts';
import { bodyOf, expectProblem } from '#test/helpers/responses.ts';
import { createTenant, type Tenant } from '#test/helpers/tenants.ts';

const SCOPES = 'agents:read agents:write agents:publish events:read';

/** agent.published, .archived and .unarchived: written by the change's own statement, or not at all. */
describe('agent events', () => {
  let handle: DatabaseHandle;
  let app: App;
  let tenant: Tenant;
  let other: Tenant;

  beforeAll(async () => {
    handle = await freshDatabase({ poolMax: 8 });
    app = buildApp({ database: handle, logger: silentLogger });
    tenant = await createTenant(handle.db);
    other = await createTenant(handle.db);
  });
  afterAll(() => handle.close());

  const event = (
    method: 'GET' | 'POST' | 'PATCH',
    resource: string,
    agentId: string,
    init: { body?: unknown; headers?: Record<string, string>; caller?: Tenant } = {},
  ) =>
    apiEvent({
      method,
      path: resource.replace('{agentId}', agentId),
      resource,
      body: init.body,
      headers: init.headers,
      caller: init.caller ?? tenant,
      scopes: SCOPES,
    });
  const created = async (name: string) =>
    bodyOf(
      Agent,
      await app.createAgent(apiEvent({ method: 'POST', path: '/agents', body: { name }, caller: tenant })),
    );
  const read = async (agentId: string) => {
    const result = await app.getAgent(event('GET', '/agents/{agentId}', agentId));
    return { agent: bodyOf(Agent, result), etag: result.headers.etag as string };
  };
  const publish = (agentId: string, versionId: string, headers?: Record<string, string>, caller?: Tenant) =>
    app.publishAgent(
      event('POST', '/agents/{agentId}/publish', agentId, { body: { versionId }, headers, caller }),
    );
  const archive = (agentId: string) => app.archiveAgent(event('POST', '/agents/{agentId}/archive', agentId));
  const unarchive = (agentId: string) =>
    app.unarchiveAgent(event('POST', '/agents/{agentId}/unarchive', agentId));

  /** The events stored about an agent, whatever the feed shows yet. */
  const stored = async (agentId: string) =>
    rowsOf<{ type: string }>(
      await handle.db.execute(
        sql`select type from events where data->>'agentId' = ${agentId} order by txid, seq`,
      ),
    ).map((r) => r.type);

  /**
   * The agent's events in the caller's feed, every page, once `count` are visible (a transaction
   * of another test file on the same server may hold the feed's horizon back a moment).
   */
  const feedOf = async (agentId: string, count: number) => {
    for (let polls = 0; ; polls++) {
      const all: Event[] = [];
      let cursor = '';
      for (;;) {
        const answer = await app.listEvents(
          apiEvent({ path: '/events', query: `limit=50&cursor=${cursor}`, caller: tenant, scopes: SCOPES }),
        );
        all.push(...bodyOf(EventList, answer));
        cursor = answer.headers['x-next-cursor'] as string;
        if (!answer.headers.link) break;
      }
      const mine = all.filter((e) => (e.data as { agentId?: string }).agentId === agentId);
      if (mine.length >= count || polls >= 400) return mine;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };

  it('a publish is one agent.published, with the version published and the one it replaced; a rollback too', async () => {
    const agent = await created('Published events');
    const v1 = agent.version.id;
    const first = await publish(agent.id, v1);
    const afterFirst = bodyOf(Agent, first);
    const v2 = bodyOf(
      AgentVersion,
      await app.createVersion(
        event('POST', '/agents/{agentId}/versions', agent.id, {
          body: { systemPrompt: 'Be brief.' },
          headers: { 'if-match': first.headers.etag as string },
        }),
      ),
    ).id;
    const second = bodyOf(Agent, await publish(agent.id, v2));
    const back = bodyOf(Agent, await publish(agent.id, v1));
    const events = await feedOf(agent.id, 4);
    expect(events.map((e) => e.type)).toEqual([
      'agent.created',
      'agent.published',
      'agent.published',
      'agent.published',
    ]);
    const named = { agentId: agent.id, name: 'Published events', slug: agent.slug, status: 'PUBLISHED' };
    expect(events.slice(1).map((e) => e.data)).toEqual([
      { ...named, versionId: v1, previousVersionId: null, publishedAt: afterFirst.publishedAt },
      { ...named, versionId: v2, previousVersionId: v1, publishedAt: second.publishedAt },
      { ...named, versionId: v1, previousVersionId: v2, publishedAt: back.publishedAt },
    ]);
    for (const e of events) {
      expect(e.workspaceId).toBe(tenant.workspaceId);
      expect(Date.parse(e.occurredAt)).toBeLessThanOrEqual(Date.parse(back.publishedAt as string));
    }
    expect(new Set(events.map((e) => e.id)).size).toBe(4);
  });

  it('a refused publish writes no event: 404 (unknown, another workspace’s), 412 stale, 409 archived or an unknown version', async () => {
    const agent = await created('Refused publishes');
    const { etag: before } = await read(agent.id);
    expect((await publish(agent.id, agent.version.id)).statusCode).toBe(200);
    expectProblem(await publish(agent.id, agent.version.id, { 'if-match': before }), 412);
    expectProblem(await publish('zzzzzzzzzzzzzzzzzzzzzzzz', agent.version.id), 404);
    expectProblem(await publish(agent.id, agent.version.id, undefined, other), 404);
    expectProblem(await publish(agent.id, 'zzzzzzzzzzzzzzzzzzzzzzzz'), 409, ['versionId']);
    expect((await archive(agent.id)).statusCode).toBe(200);
    expectProblem(await publish(agent.id, agent.version.id), 409);
    expect(await stored(agent.id)).toEqual(['agent.created', 'agent.published', 'agent.archived']);
    expect((await feedOf(agent.id, 3)).map((e) => e.type)).toEqual([
      'agent.created',
      'agent.published',
      'agent.archived',
    ]);
  });

  it('archive is one agent.archived (again: none); unarchive one agent.unarchived with the status restored', async () => {
    const agent = await created('Archived events');
    await publish(agent.id, agent.version.id);
    const archived = bodyOf(Agent, await archive(agent.id));
    const again = await archive(agent.id);
    expect(checkAnswer('archive-agent', again).status).toBe(200);
    const restored = bodyOf(Agent, await unarchive(agent.id));
    expect(checkAnswer('unarchive-agent', await unarchive(agent.id)).status).toBe(200);
    const events = await feedOf(agent.id, 4);
    const named = { agentId: agent.id, name: 'Archived events', slug: agent.slug };
    expect(events.map((e) => [e.type, e.data])).toEqual([
      ['agent.created', expect.any(Object)],
      ['agent.published', expect.objectContaining({ versionId: agent.version.id })],
      ['agent.archived', { ...named, status: 'ARCHIVED', archivedAt: archived.archivedAt }],
      ['agent.unarchived', { ...named, status: 'PUBLISHED' }],
    ]);
    expect(restored.status).toBe('PUBLISHED');
    expect(await stored(agent.id)).toHaveLength(4);
  });

  it('PATCH and a new draft version write no event (the history records them)', async () => {
    const agent = await created('Quiet changes');
    const { etag } = await read(agent.id);
    const patched = await app.updateAgent(
      event('PATCH', '/agents/{agentId}', agent.id, {
        body: { name: 'Quiet changes, renamed' },
        headers: { 'if-match': etag, 'content-type': 'application/merge-patch+json' },
      }),
    );
    expect(patched.statusCode).toBe(200);
    const version = await app.createVersion(
      event('POST', '/agents/{agentId}/versions', agent.id, {
        body: { systemPrompt: 'New' },
        headers: { 'if-match': patched.headers.etag as string },
      }),
    );
    expect(version.statusCode).toBe(201);
    expect(await stored(agent.id)).toEqual(['agent.created']);
  });

  it('concurrent publishes: one event for each that succeeded, chained by the version each replaced', async () => {
    const { agentId, versionIds } = await insertAgent(handle.db, tenant, { n: 1, versions: 4 });
    const { etag } = await read(agentId);
    // One ETag for all: one wins, the others are 412 and write nothing.
    const raced = await Promise.all(versionIds.map((id) => publish(agentId, id, { 'if-match': etag })));
    expect(raced.map((r) => r.statusCode).sort()).toEqual([200, 412, 412, 412]);
    expect(await stored(agentId)).toEqual(['agent.published']);
    // Without If-Match each applies in turn: as many events as successes.
    const all = await Promise.all([...versionIds, ...versionIds].map((id) => publish(agentId, id)));
    expect(all.every((r) => r.statusCode === 200)).toBe(true);
    const events = await feedOf(agentId, 9);
    expect(events).toHaveLength(9);
    // In the order the row lock gave them (their publishedAt), each replaced the one before.
    const chain = events
      .map((e) => e.data as { versionId: string; previousVersionId: string | null; publishedAt: string })
      .sort((a, b) => a.publishedAt.localeCompare(b.publishedAt));
    expect(chain[0]?.previousVersionId).toBeNull();
    for (let i = 1; i < chain.length; i++) expect(chain[i]?.previousVersionId).toBe(chain[i - 1]?.versionId);
    const { agent } = await read(agentId);
    expect(agent.publishedVersionId).toBe(chain.at(-1)?.versionId);
  });
});
