import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, AgentVersion } from '#contract/schemas/agent.ts';
import { AgentChangeList } from '#contract/schemas/agent-change.ts';
import type { DatabaseHandle } from '#db/client.ts';
import { silentLogger } from '#functions/http/log.ts';
import { type App, buildApp, checkAnswer } from '#test/hardening/support/app.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { apiEvent } from '#test/helpers/events.ts';
import { insertAgent } from '#test/helpers/fixtures.ts';
import { bodyOf } from '#test/helpers/responses.ts';
import { createTenant, type Tenant } from '#test/helpers/tenants.ts';

// Changes to one agent at once, each on a connection of its own (on PGlite, one after the other).
describe('concurrent changes to one agent', () => {
  let handle: DatabaseHandle;
  let app: App;
  let tenant: Tenant;

  beforeAll(async () => {
    handle = await freshDatabase({ poolMax: 6 });
    app = buildApp({ database: handle, logger: silentLogger });
    tenant = await createTenant(handle.db);
  });
  afterAll(() => handle.close());

  const event = (resource: string, agentId: string, body?: unknown, headers: Record<string, string> = {}) =>
    apiEvent({
      method: resource.endsWith('history') || resource === '/agents/{agentId}' ? 'GET' : 'POST',
      path: resource.replace('{agentId}', agentId),
      resource,
      body,
      headers,
      caller: tenant,
    });
  const publish = (agentId: string, versionId: string, headers?: Record<string, string>) =>
    app.publishAgent(event('/agents/{agentId}/publish', agentId, { versionId }, headers));
  const historyOf = async (agentId: string) =>
    bodyOf(AgentChangeList, await app.agentHistory(event('/agents/{agentId}/history', agentId)));
  const read = async (agentId: string) => {
    const result = await app.getAgent(event('/agents/{agentId}', agentId));
    return { agent: bodyOf(Agent, result), etag: result.headers.etag };
  };

  it('two publishes without If-Match serialize: both apply, the later one wins, history chains', async () => {
    const { agentId, versionIds } = await insertAgent(handle.db, tenant, { n: 1, versions: 2 });
    const results = await Promise.all(versionIds.map((id) => publish(agentId, id)));
    for (const result of results) expect(checkAnswer('publish-agent', result).status).toBe(200);
    const { agent, etag } = await read(agentId);
    const entries = await historyOf(agentId);
    expect(entries.map((e) => e.operation)).toEqual(['publish-agent', 'publish-agent']);
    const [last, first] = entries as [(typeof entries)[0], (typeof entries)[0]];
    // The agent ends as the last change left it: its version, its ETag, that answer's ETag.
    expect(agent.publishedVersionId).toBe(last.agentVersionId);
    expect(last.etagAfter).toBe(etag);
    expect(last.etagBefore).toBe(first.etagAfter);
    expect(new Set(entries.map((e) => e.agentVersionId))).toEqual(new Set(versionIds));
    const answered = results.map((r) => r.headers.etag).sort();
    expect(answered).toEqual([first.etagAfter, last.etagAfter].sort());
  });

  it('two publishes with the same If-Match: one wins, the other is 412; one history entry', async () => {
    const { agentId, versionIds } = await insertAgent(handle.db, tenant, { n: 2, versions: 2 });
    const { etag: before } = await read(agentId);
    const results = await Promise.all(
      versionIds.map((id) => publish(agentId, id, { 'if-match': before as string })),
    );
    const statuses = results.map((r) => checkAnswer('publish-agent', r).status).sort();
    expect(statuses).toEqual([200, 412]);
    const winner = results.find((r) => r.statusCode === 200);
    const won = bodyOf(Agent, winner as never);
    const { agent, etag } = await read(agentId);
    expect(agent).toEqual(won);
    expect(etag).toBe(winner?.headers.etag);
    const entries = await historyOf(agentId);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      operation: 'publish-agent',
      agentVersionId: won.publishedVersionId,
      etagBefore: before,
      etagAfter: etag,
    });
  });

  it('new versions with If-Match: * at once: each gets its own number; with one ETag, one does', async () => {
    const { agentId } = await insertAgent(handle.db, tenant, { n: 3 });
    const post = (ifMatch: string, i: number) =>
      app.createVersion(
        event('/agents/{agentId}/versions', agentId, { systemPrompt: `p${i}` }, { 'if-match': ifMatch }),
      );
    const any = await Promise.all([0, 1, 2, 3].map((i) => post('*', i)));
    const numbers = any.map((r) => bodyOf(AgentVersion, r).version).sort();
    expect(numbers).toEqual([2, 3, 4, 5]);
    const { etag } = await read(agentId);
    const tagged = await Promise.all([0, 1, 2].map((i) => post(etag as string, i)));
    expect(tagged.map((r) => r.statusCode).sort()).toEqual([201, 412, 412]);
    const { agent } = await read(agentId);
    expect(agent.version.version).toBe(6);
    expect((await historyOf(agentId)).map((e) => e.operation)).toEqual(Array(5).fill('create-version'));
  });
});
