import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, AgentVersion } from '#contract/schemas/agent.ts';
import { AgentChangeList } from '#contract/schemas/agent-change.ts';
import type { DatabaseHandle } from '#db/client.ts';
import { rowsOf } from '#db/queries/rows.ts';
import { silentLogger } from '#functions/http/log.ts';
import type { ApiResult } from '#functions/http/types.ts';
import { type App, buildApp } from '#test/hardening/support/app.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { apiEvent } from '#test/helpers/events.ts';
import { insertAgent } from '#test/helpers/fixtures.ts';
import { agentEtag, bodyOf, expectProblem } from '#test/helpers/responses.ts';
import { createTenant, type Tenant } from '#test/helpers/tenants.ts';

const PROBLEMS = 'https://voice-agent-admin.dev/problems/';

/** Everything a change could write, for one agent: its row, its versions and its history. */
async function stateOf(handle: DatabaseHandle, agentId: string) {
  const [row] = rowsOf<{ agent: unknown; versions: number; changes: number }>(
    await handle.db.execute(sql`select
      (select row_to_json(a)::text from agents a where id = ${agentId}) as agent,
      (select count(*)::int from agent_versions where agent_id = ${agentId}) as versions,
      (select count(*)::int from agent_changes where agent_id = ${agentId}) as changes`),
  );
  return row;
}

describe('changes to an agent', () => {
  let handle: DatabaseHandle;
  let app: App;
  let tenant: Tenant;
  let other: Tenant;

  beforeAll(async () => {
    handle = await freshDatabase();
    app = buildApp({ database: handle, logger: silentLogger });
    tenant = await createTenant(handle.db);
    other = await createTenant(handle.db);
  });
  afterAll(() => handle.close());

  type Init = {
    caller?: Tenant;
    body?: unknown;
    headers?: Record<string, string>;
    scopes?: string;
    query?: string;
  };
  const event = (method: 'GET' | 'POST' | 'PATCH', resource: string, agentId: string, init: Init = {}) =>
    apiEvent({
      method,
      path: resource.replace('{agentId}', encodeURIComponent(agentId)),
      resource,
      pathParameters: { agentId },
      caller: init.caller ?? tenant,
      body: init.body,
      headers: init.headers,
      scopes: init.scopes,
      query: init.query,
    });
  const get = (id: string, caller = tenant) =>
    app.getAgent(event('GET', '/agents/{agentId}', id, { caller }));
  const etagOf = async (id: string) => (await get(id)).headers.etag as string;
  const newVersion = (id: string, init: Init = {}) =>
    app.createVersion(event('POST', '/agents/{agentId}/versions', id, init));
  const patch = (id: string, init: Init = {}) =>
    app.updateAgent(event('PATCH', '/agents/{agentId}', id, init));
  const publish = (id: string, init: Init = {}) =>
    app.publishAgent(event('POST', '/agents/{agentId}/publish', id, init));
  const archive = (id: string, init: Init = {}) =>
    app.archiveAgent(event('POST', '/agents/{agentId}/archive', id, init));
  const unarchive = (id: string, init: Init = {}) =>
    app.unarchiveAgent(event('POST', '/agents/{agentId}/unarchive', id, init));
  const history = (id: string, init: Init = {}) =>
    app.agentHistory(event('GET', '/agents/{agentId}/history', id, init));
  const ifMatch = (etag: string) => ({ 'if-match': etag });
  const created = async (body: unknown = { name: 'Changed' }, caller = tenant) =>
    bodyOf(Agent, await app.createAgent(apiEvent({ method: 'POST', path: '/agents', body, caller })));

  /** The request changes nothing at all: same agent row, versions and history. */
  async function writesNothing(agentId: string, request: () => Promise<ApiResult>) {
    const before = await stateOf(handle, agentId);
    const result = await request();
    expect(await stateOf(handle, agentId)).toEqual(before);
    return result;
  }

  describe('POST /agents/{agentId}/versions', () => {
    it('adds a draft version built from the latest, omitted fields copied, with the agent’s new ETag', async () => {
      const agent = await created({
        name: 'Versioned',
        version: {
          systemPrompt: 'v1 prompt',
          inputMode: ['PHONE'],
          config: { llm: { provider: 'LLM_PROVIDER_2' } },
          knowledgeBaseId: 'kb1',
        },
      });
      const before = agentEtag(agent);
      const result = await newVersion(agent.id, {
        body: { systemPrompt: 'v2 prompt', followUp: true },
        headers: ifMatch(before),
      });
      expect(result.statusCode).toBe(201);
      const version = bodyOf(AgentVersion, result);
      expect(version).toEqual({
        ...agent.version,
        id: version.id,
        version: 2,
        sourceAgentVersionId: agent.version.id,
        systemPrompt: 'v2 prompt',
        followUp: true,
        createdAt: version.createdAt,
        updatedAt: version.createdAt,
        createdBy: tenant.principalId,
        updatedBy: tenant.principalId,
      });
      const read = await get(agent.id);
      const now = bodyOf(Agent, read);
      expect(result.headers.etag).toBe(read.headers.etag);
      expect(result.headers.etag).not.toBe(before);
      expect(now).toMatchObject({ status: 'DRAFT', updatedAt: version.createdAt, version });
      expect(Date.parse(now.updatedAt)).toBeGreaterThan(Date.parse(agent.updatedAt));
    });

    it('builds from sourceAgentVersionId; null clears a field; a config given is replaced whole and completed', async () => {
      const { agentId, versionIds } = await insertAgent(handle.db, tenant, { n: 1, versions: 3 });
      const result = await newVersion(agentId, {
        body: {
          sourceAgentVersionId: versionIds[0],
          systemPrompt: null,
          config: {
            stt: { provider: 'STT_PROVIDER_1', model: 'STT_MODEL_1A' },
            llm: { provider: 'LLM_PROVIDER_1' },
          },
        },
        headers: ifMatch('*'),
      });
      const version = bodyOf(AgentVersion, result);
      expect(version).toMatchObject({
        version: 4,
        sourceAgentVersionId: versionIds[0],
        systemPrompt: null,
        config: {
          llm: { provider: 'LLM_PROVIDER_1', model: 'LLM_MODEL_1A' },
          stt: { provider: 'STT_PROVIDER_1', model: 'STT_MODEL_1A' },
        },
      });
    });

    it('428 without If-Match, 412 on a stale one, 400 on a malformed one: nothing written', async () => {
      const agent = await created();
      const stale = agentEtag(agent);
      expect(
        bodyOf(AgentVersion, await newVersion(agent.id, { body: {}, headers: ifMatch(stale) })).version,
      ).toBe(2);
      const without = await writesNothing(agent.id, () => newVersion(agent.id, { body: {} }));
      expect(expectProblem(without, 428).type).toBe(`${PROBLEMS}precondition-required`);
      const old = await writesNothing(agent.id, () =>
        newVersion(agent.id, { body: {}, headers: ifMatch(stale) }),
      );
      expect(expectProblem(old, 412).type).toBe(`${PROBLEMS}precondition-failed`);
      const weak = await writesNothing(agent.id, async () =>
        newVersion(agent.id, { body: {}, headers: ifMatch(`W/${await etagOf(agent.id)}`) }),
      );
      expectProblem(weak, 412);
      const bad = await writesNothing(agent.id, () =>
        newVersion(agent.id, { body: {}, headers: ifMatch('nope') }),
      );
      expectProblem(bad, 400, ['If-Match']);
    });

    it('409 for an archived agent and for a source version of another agent, naming it; nothing written', async () => {
      const agent = await created();
      const { versionIds } = await insertAgent(handle.db, tenant, { n: 2 });
      const foreign = await writesNothing(agent.id, async () =>
        newVersion(agent.id, {
          body: { sourceAgentVersionId: versionIds[0] },
          headers: ifMatch(await etagOf(agent.id)),
        }),
      );
      expect(expectProblem(foreign, 409, ['sourceAgentVersionId']).type).toBe(`${PROBLEMS}conflict`);
      expect((await archive(agent.id)).statusCode).toBe(200);
      const archived = await writesNothing(agent.id, async () =>
        newVersion(agent.id, { body: {}, headers: ifMatch(await etagOf(agent.id)) }),
      );
      expect(expectProblem(archived, 409).detail).toMatch(/ARCHIVED.*unarchive it first/);
    });

    it('400 for an unknown field or a bad value, naming each', async () => {
      const agent = await created();
      const headers = ifMatch('*');
      expectProblem(await newVersion(agent.id, { body: { version: {} }, headers }), 400, ['version']);
      expectProblem(await newVersion(agent.id, { body: { inputMode: ['FAX'], followUp: 1 }, headers }), 400, [
        'inputMode.0',
        'followUp',
      ]);
      expectProblem(
        await newVersion(agent.id, { body: { sourceAgentVersionId: 'NOT AN ID' }, headers }),
        400,
        ['sourceAgentVersionId'],
      );
    });

    it('honours Idempotency-Key: the same answer (ETag too) and one write; another request under it: 422', async () => {
      const agent = await created();
      const init = {
        body: { systemPrompt: 'once' },
        headers: { ...ifMatch(agentEtag(agent)), 'idempotency-key': 'v-1' },
      };
      const first = await newVersion(agent.id, init);
      expect(first.statusCode).toBe(201);
      const again = await writesNothing(agent.id, () => newVersion(agent.id, init));
      expect(again).toMatchObject({ statusCode: 201, body: first.body });
      expect(again.headers).toMatchObject({ etag: first.headers.etag, 'idempotent-replayed': 'true' });
      expect((await stateOf(handle, agent.id))?.versions).toBe(2);
      const otherBody = await newVersion(agent.id, { ...init, body: { systemPrompt: 'twice' } });
      expect(expectProblem(otherBody, 422).type).toBe(`${PROBLEMS}idempotency-key-reused`);
      const otherAgent = await created({ name: 'Another' });
      const elsewhere = await newVersion(otherAgent.id, init);
      expectProblem(elsewhere, 422);
    });

    it("404s another workspace's agent, even with its current ETag; needs agents:write", async () => {
      const theirs = await created({ name: 'Theirs' }, other);
      const result = await writesNothing(theirs.id, () =>
        newVersion(theirs.id, { body: {}, headers: ifMatch(agentEtag(theirs)) }),
      );
      expect(expectProblem(result, 404).type).toBe(`${PROBLEMS}resource-not-found`);
      const mine = await created();
      const scoped = await newVersion(mine.id, {
        body: {},
        headers: ifMatch('*'),
        scopes: 'agents:read agents:publish',
      });
      expect(expectProblem(scoped, 403).detail).toMatch(/agents:write/);
    });
  });

  describe('PATCH /agents/{agentId}', () => {
    it('changes only the members given (merge patch), keeps the version, moves the ETag', async () => {
      const agent = await created({ name: 'Patch me', description: 'old' });
      const result = await patch(agent.id, {
        body: { name: '  Patched  ', description: null },
        headers: { ...ifMatch(agentEtag(agent)), 'content-type': 'application/merge-patch+json' },
      });
      expect(result.statusCode).toBe(200);
      const changed = bodyOf(Agent, result);
      expect(changed).toEqual({
        ...agent,
        name: 'Patched',
        description: null,
        updatedAt: changed.updatedAt,
        updatedBy: tenant.principalId,
      });
      expect(result.headers.etag).toBe(agentEtag(changed));
      expect(bodyOf(Agent, await get(agent.id))).toEqual(changed);
    });

    it('a patch that changes nothing answers 200 with the same ETag and writes nothing (no history, no event)', async () => {
      const agent = await created({ name: 'Same', description: 'kept', slug: 'same-slug' });
      const etag = await etagOf(agent.id);
      const events = async () =>
        rowsOf<{ n: number }>(
          await handle.db.execute(
            sql`select count(*)::int as n from events where data->>'agentId' = ${agent.id}`,
          ),
        )[0]?.n;
      const eventsBefore = await events();
      for (const body of [
        { name: ' Same ' },
        { description: 'kept', slug: 'same-slug' },
        { name: 'Same', description: 'kept' },
      ]) {
        const result = await writesNothing(agent.id, () => patch(agent.id, { body, headers: ifMatch(etag) }));
        expect(result.statusCode).toBe(200);
        expect(result.headers.etag).toBe(etag);
        expect(bodyOf(Agent, result)).toEqual(bodyOf(Agent, await get(agent.id)));
      }
      expect(await events()).toBe(eventsBefore);
      // A stale ETag is still a 412, and one member that differs is a change.
      expectProblem(await patch(agent.id, { body: { name: 'Same' }, headers: ifMatch('"stale.1"') }), 412);
      const changed = await patch(agent.id, {
        body: { name: 'Same', description: null },
        headers: ifMatch(etag),
      });
      expect(changed.headers.etag).not.toBe(etag);
    });

    it('409 when the slug is taken (nothing written); 400 for an empty patch; 415 for another media type', async () => {
      const taken = await created({ name: 'Taken', slug: 'taken-slug' });
      const agent = await created({ name: 'Wants it' });
      const headers = ifMatch(agentEtag(agent));
      const conflict = await writesNothing(agent.id, () =>
        patch(agent.id, { body: { slug: taken.slug }, headers }),
      );
      expectProblem(conflict, 409, ['slug']);
      expectProblem(await patch(agent.id, { body: {}, headers }), 400);
      const text = await patch(agent.id, {
        body: { name: 'x' },
        headers: { ...headers, 'content-type': 'text/plain' },
      });
      expect(expectProblem(text, 415).detail).toMatch(/merge-patch\+json/);
      expect(bodyOf(Agent, await patch(agent.id, { body: { slug: 'free-slug' }, headers })).slug).toBe(
        'free-slug',
      );
    });

    it('428 without If-Match, 412 when stale, 409 when archived', async () => {
      const agent = await created();
      expectProblem(await patch(agent.id, { body: { name: 'x' } }), 428);
      await patch(agent.id, { body: { name: 'y' }, headers: ifMatch('*') });
      expectProblem(await patch(agent.id, { body: { name: 'x' }, headers: ifMatch(agentEtag(agent)) }), 412);
      await archive(agent.id);
      expectProblem(await patch(agent.id, { body: { name: 'x' }, headers: ifMatch('*') }), 409);
    });
  });

  describe('POST /agents/{agentId}/publish', () => {
    it('publishes a version (PUBLISHED, by the caller), then an older one: the rollback', async () => {
      const { agentId, versionIds } = await insertAgent(handle.db, tenant, { n: 3, versions: 2 });
      const [v1, v2] = versionIds as [string, string];
      const first = await publish(agentId, { body: { versionId: v2 } });
      expect(first.statusCode).toBe(200);
      const published = bodyOf(Agent, first);
      expect(published).toMatchObject({
        status: 'PUBLISHED',
        publishedVersionId: v2,
        publishedAt: published.updatedAt,
        publishedBy: tenant.principalId,
        updatedBy: tenant.principalId,
      });
      expect(published.version.id).toBe(v2);
      expect(first.headers.etag).toBe(agentEtag(published));
      const rollback = bodyOf(
        Agent,
        await publish(agentId, { body: { versionId: v1 }, headers: ifMatch(first.headers.etag as string) }),
      );
      expect(rollback).toMatchObject({ status: 'PUBLISHED', publishedVersionId: v1 });
      expect(Date.parse(rollback.publishedAt as string)).toBeGreaterThan(
        Date.parse(published.publishedAt as string),
      );
    });

    it('leaves published versions as they were: a new version is a new row', async () => {
      const agent = await created();
      await publish(agent.id, { body: { versionId: agent.version.id } });
      const version = bodyOf(
        AgentVersion,
        await newVersion(agent.id, { body: { systemPrompt: 'later' }, headers: ifMatch('*') }),
      );
      const [row] = rowsOf<{ v: string }>(
        await handle.db.execute(
          sql`select row_to_json(v)::text as v from agent_versions v where id = ${agent.version.id}`,
        ),
      );
      expect(JSON.parse(row?.v as string)).toMatchObject({ system_prompt: null, version: 1 });
      const now = bodyOf(Agent, await get(agent.id));
      expect(now).toMatchObject({
        status: 'PUBLISHED',
        publishedVersionId: agent.version.id,
        version: { id: version.id },
      });
    });

    it('409 for a version of another agent or workspace, 400 for a malformed id, 412 for a stale If-Match', async () => {
      const agent = await created();
      const { versionIds } = await insertAgent(handle.db, tenant, { n: 4 });
      const { versionIds: theirs } = await insertAgent(handle.db, other, { n: 5 });
      for (const versionId of [versionIds[0], theirs[0]]) {
        const result = await writesNothing(agent.id, () => publish(agent.id, { body: { versionId } }));
        expectProblem(result, 409, ['versionId']);
      }
      expectProblem(await publish(agent.id, { body: { versionId: 'Bad!' } }), 400, ['versionId']);
      expectProblem(await publish(agent.id, { body: {} }), 400, ['versionId']);
      const stale = await writesNothing(agent.id, () =>
        publish(agent.id, { body: { versionId: agent.version.id }, headers: ifMatch('"nope"') }),
      );
      expectProblem(stale, 412);
    });

    it('409 for an archived agent; 404 across workspaces; needs agents:publish, not agents:write', async () => {
      const agent = await created();
      await archive(agent.id);
      const archived = await writesNothing(agent.id, () =>
        publish(agent.id, { body: { versionId: agent.version.id } }),
      );
      expect(expectProblem(archived, 409).detail).toMatch(/ARCHIVED/);
      const theirs = await created({ name: 'Theirs' }, other);
      expectProblem(await publish(theirs.id, { body: { versionId: theirs.version.id } }), 404);
      const scoped = await publish(theirs.id, {
        caller: other,
        body: { versionId: theirs.version.id },
        scopes: 'agents:read agents:write',
      });
      expect(expectProblem(scoped, 403).detail).toMatch(/agents:publish/);
    });
  });

  describe('POST /agents/{agentId}/archive and /unarchive', () => {
    it('archives; archiving again changes nothing and answers the same; unarchive returns it to its status', async () => {
      const agent = await created();
      await publish(agent.id, { body: { versionId: agent.version.id } });
      const first = await archive(agent.id);
      const archived = bodyOf(Agent, first);
      expect(archived).toMatchObject({
        status: 'ARCHIVED',
        archivedAt: archived.updatedAt,
        archivedBy: tenant.principalId,
        publishedVersionId: agent.version.id,
      });
      const again = await writesNothing(agent.id, () => archive(agent.id));
      expect(again).toMatchObject({
        statusCode: 200,
        body: first.body,
        headers: { etag: first.headers.etag },
      });
      const back = bodyOf(
        Agent,
        await unarchive(agent.id, { headers: ifMatch(first.headers.etag as string) }),
      );
      expect(back).toMatchObject({ status: 'PUBLISHED', archivedAt: null, archivedBy: null });
      const still = await writesNothing(agent.id, () => unarchive(agent.id));
      expect(bodyOf(Agent, still)).toEqual(back);
    });

    it('unarchives a never-published agent to DRAFT and a completed one to COMPLETED; 412 when stale', async () => {
      const draft = await created();
      await archive(draft.id);
      expect(bodyOf(Agent, await unarchive(draft.id)).status).toBe('DRAFT');
      const done = await created({ name: 'Done' });
      await handle.db.execute(
        sql`update agents set status = 'COMPLETED', completed_at = now(), completed_by = 'someone' where id = ${done.id}`,
      );
      expectProblem(await publish(done.id, { body: { versionId: done.version.id } }), 409);
      const archived = await archive(done.id);
      expect(bodyOf(Agent, archived).status).toBe('ARCHIVED');
      expectProblem(await unarchive(done.id, { headers: ifMatch(agentEtag(done)) }), 412);
      expect(bodyOf(Agent, await unarchive(done.id)).status).toBe('COMPLETED');
    });

    it('404 across workspaces; needs agents:publish; refuses a body-less request’s query parameters', async () => {
      const theirs = await created({ name: 'Theirs' }, other);
      expectProblem(await archive(theirs.id), 404);
      expectProblem(await unarchive('zzzzzzzzzzzzzzzzzzzzzzzz'), 404);
      expectProblem(await archive(theirs.id, { caller: other, scopes: 'agents:read agents:write' }), 403);
      expectProblem(await archive(theirs.id, { caller: other, query: 'force=true' }), 400, ['force']);
    });

    // Both used to ignore a body: a client sending `{ "reason": … }` believed it was recorded.
    it('take no fields: none or `{}` is fine; a field is a 400 naming it, another media type a 415, nothing written', async () => {
      const agent = await created({ name: 'Bodies' });
      for (const change of [archive, unarchive]) {
        expectProblem(await writesNothing(agent.id, () => change(agent.id, { body: { reason: 'x' } })), 400, [
          'reason',
        ]);
        const text = { body: 'x', headers: { 'content-type': 'text/plain' } };
        expectProblem(await writesNothing(agent.id, () => change(agent.id, text)), 415);
        expect((await change(agent.id, { body: {} })).statusCode).toBe(200);
      }
      expect(bodyOf(Agent, await get(agent.id)).status).toBe('DRAFT');
    });
  });

  describe('GET /agents/{agentId}/history', () => {
    it('records every change, newest first, who and what, with ETags that chain', async () => {
      const agent = await created({ name: 'Audited' });
      const v2 = bodyOf(
        AgentVersion,
        await newVersion(agent.id, { body: {}, headers: ifMatch(agentEtag(agent)) }),
      );
      await patch(agent.id, { body: { name: 'Audited 2' }, headers: ifMatch('*') });
      await publish(agent.id, { body: { versionId: v2.id } });
      await archive(agent.id);
      await unarchive(agent.id);
      const result = await history(agent.id);
      expect(result.statusCode).toBe(200);
      const entries = bodyOf(AgentChangeList, result);
      expect(entries.map((e) => [e.operation, e.agentVersionId])).toEqual([
        ['unarchive-agent', null],
        ['archive-agent', null],
        ['publish-agent', v2.id],
        ['update-agent', null],
        ['create-version', v2.id],
        ['create-agent', agent.version.id],
      ]);
      for (const entry of entries)
        expect(entry).toMatchObject({
          agentId: agent.id,
          workspaceId: tenant.workspaceId,
          principalId: tenant.principalId,
          keyId: tenant.keyId,
        });
      expect(entries.at(-1)).toMatchObject({
        etagBefore: null,
        etagAfter: agentEtag(agent),
        createdAt: agent.createdAt,
      });
      for (let i = 0; i < entries.length - 1; i++)
        expect(entries[i]?.etagBefore).toBe(entries[i + 1]?.etagAfter);
      const now = await get(agent.id);
      expect(entries[0]?.etagAfter).toBe(now.headers.etag);
      expect(entries[0]?.createdAt).toBe(bodyOf(Agent, now).updatedAt);
    });

    it('pages by limit and by cursor, with a total on request', async () => {
      const agent = await created({ name: 'Paged' });
      for (let i = 0; i < 4; i++)
        await patch(agent.id, { body: { name: `Paged ${i}` }, headers: ifMatch('*') });
      const all = bodyOf(AgentChangeList, await history(agent.id, { query: 'includeTotal=true' }));
      expect(all).toHaveLength(5);
      const first = await history(agent.id, { query: 'limit=2&cursor=' });
      expect(bodyOf(AgentChangeList, first)).toEqual(all.slice(0, 2));
      const cursor = new URL(/<([^>]+)>/.exec(first.headers.link ?? '')?.[1] as string).searchParams.get(
        'cursor',
      );
      const second = await history(agent.id, {
        query: `limit=2&cursor=${encodeURIComponent(cursor as string)}`,
      });
      expect(bodyOf(AgentChangeList, second)).toEqual(all.slice(2, 4));
      const offset = await history(agent.id, { query: 'limit=2&offset=4&includeTotal=true' });
      expect(bodyOf(AgentChangeList, offset)).toEqual(all.slice(4));
      expect(offset.headers).toMatchObject({ 'x-total-count': '5' });
      expect(offset.headers.link).toBeUndefined();
      const oldest = bodyOf(AgentChangeList, await history(agent.id, { query: 'order=asc&limit=1' }));
      expect(oldest).toEqual([all[4]]);
      // A cursor is bound to its agent.
      const another = await created({ name: 'Another paged' });
      expectProblem(
        await history(another.id, { query: `cursor=${encodeURIComponent(cursor as string)}` }),
        400,
        ['cursor'],
      );
    });

    it('an agent without entries: an empty page; another workspace’s or no agent: 404; bad paging: 400', async () => {
      const { agentId } = await insertAgent(handle.db, tenant, { n: 6 });
      const empty = await history(agentId, { query: 'includeTotal=true' });
      expect(empty).toMatchObject({ statusCode: 200, body: '[]', headers: { 'x-total-count': '0' } });
      const theirs = await created({ name: 'Theirs' }, other);
      expectProblem(await history(theirs.id), 404);
      expectProblem(await history('zzzzzzzzzzzzzzzzzzzzzzzz'), 404);
      expectProblem(await history(agentId, { query: 'limit=0' }), 400, ['limit']);
      expectProblem(await history(agentId, { scopes: 'sessions:read' }), 403);
    });
  });
});
