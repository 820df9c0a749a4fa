import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionList } from '#contract/schemas/session.ts';
import type { DatabaseHandle } from '#db/client.ts';
import { silentLogger } from '#functions/http/log.ts';
import { build } from '#functions/sessions/list.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { apiEvent } from '#test/helpers/events.ts';
import { at, fixturePhone, insertAgent, insertSession } from '#test/helpers/fixtures.ts';
import { bodyOf, expectProblem } from '#test/helpers/responses.ts';
import { createTenant, type Tenant } from '#test/helpers/tenants.ts';

describe('GET /sessions', () => {
  let handle: DatabaseHandle;
  let listSessions: ReturnType<typeof build>;
  let tenant: Tenant;
  let other: Tenant;
  const ids: string[] = [];
  let versionIds: string[] = [];

  beforeAll(async () => {
    handle = await freshDatabase();
    listSessions = build({ database: handle, logger: silentLogger });
    tenant = await createTenant(handle.db);
    other = await createTenant(handle.db, { name: 'Other workspace' });
    const agent = await insertAgent(handle.db, tenant, { versions: 2 });
    versionIds = agent.versionIds;
    for (let n = 1; n <= 5; n++) {
      const s = await insertSession(handle.db, tenant, agent, {
        n,
        version: n <= 2 ? 1 : 2,
        ledger: n % 2 === 1,
      });
      ids.push(s.sessionId);
    }
    const otherAgent = await insertAgent(handle.db, other);
    await insertSession(handle.db, other, otherAgent, { n: 99 });
  });
  afterAll(() => handle.close());

  const list = (query = '', caller: Tenant = tenant) =>
    listSessions(apiEvent({ path: '/sessions', query, caller }));

  it('returns the workspace sessions newest first, each with its agent, conversation, person and ledger', async () => {
    const result = await list();
    expect(result.statusCode).toBe(200);
    expect(result.headers['content-type']).toBe('application/json');
    expect(result.headers['cache-control']).toBe('no-store');
    expect(result.headers['x-content-type-options']).toBe('nosniff');
    expect(result.headers.link).toBeUndefined();
    const sessions = bodyOf(SessionList, result);
    expect(sessions.map((s) => s.id)).toEqual([...ids].reverse());
    const newest = sessions[0];
    expect(newest).toMatchObject({
      name: 'Session 5',
      status: 'COMPLETED',
      workspaceId: tenant.workspaceId,
      createdAt: at(5),
      completedAt: at(65),
      completedMeta: { traceId: 'trace-5' },
      conversation: { name: 'Conversation 5', workspaceId: tenant.workspaceId },
      person: { email: 'person5@example.com', phone: fixturePhone(5), properties: { plan: 'pro' } },
      ledger: { amount: -120, reason: 'VOICE_USAGE', sessionId: ids[4] },
    });
    expect(newest?.person.id).toBe(newest?.personId);
    expect(newest?.conversation.id).toBe(newest?.conversationId);
    expect(newest?.agent.id).toBe(newest?.agentId);
  });

  it('embeds the version each session ran on, not the latest one', async () => {
    const sessions = bodyOf(SessionList, await list());
    const byName = new Map(sessions.map((s) => [s.name, s]));
    expect(byName.get('Session 1')?.agent.version).toMatchObject({ id: versionIds[0], version: 1 });
    expect(byName.get('Session 5')?.agent.version).toMatchObject({ id: versionIds[1], version: 2 });
    for (const s of sessions) expect(s.agent.version.id).toBe(s.agentVersionId);
  });

  it('gives ledger null when a session has no ledger entry', async () => {
    const sessions = bodyOf(SessionList, await list());
    expect(sessions.filter((s) => s.ledger === null).map((s) => s.name)).toEqual(['Session 4', 'Session 2']);
  });

  it('pages with limit and offset and links the next page (RFC 8288)', async () => {
    const first = await list('limit=2');
    expect(bodyOf(SessionList, first).map((s) => s.id)).toEqual([ids[4], ids[3]]);
    expect(first.headers.link).toBe('<https://api.test/sessions?limit=2&offset=2>; rel="next"');
    const last = await list('limit=2&offset=4');
    expect(bodyOf(SessionList, last).map((s) => s.id)).toEqual([ids[0]]);
    expect(last.headers.link).toBeUndefined();
    const beyond = await list('offset=50');
    expect(bodyOf(SessionList, beyond)).toEqual([]);
  });

  it("never shows another workspace's sessions", async () => {
    const theirs = bodyOf(SessionList, await list('', other));
    expect(theirs).toHaveLength(1);
    expect(theirs[0]?.workspaceId).toBe(other.workspaceId);
    const ours = bodyOf(SessionList, await list());
    expect(ours.every((s) => s.workspaceId === tenant.workspaceId)).toBe(true);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=251', 'limit'],
    ['limit=-1', 'limit'],
    ['limit=2.5', 'limit'],
    ['limit=abc', 'limit'],
    ['limit=', 'limit'],
    ['limit=1e2', 'limit'],
    ['offset=-1', 'offset'],
    ['offset=1.0', 'offset'],
    ['offset=99999999999999999999', 'offset'],
    ['limit=1&limit=2', 'limit'],
    ['colour=red', 'colour'],
  ])('rejects %s with a problem naming "%s"', async (query, path) => {
    expectProblem(await list(query), 400, [path]);
  });

  it('accepts the bounds limit=1, limit=250 and offset=0', async () => {
    expect(bodyOf(SessionList, await list('limit=1'))).toHaveLength(1);
    expect((await list('limit=250&offset=0')).statusCode).toBe(200);
  });

  it('refuses a key without the sessions:read scope', async () => {
    const result = await listSessions(
      apiEvent({ path: '/sessions', caller: tenant, scopes: 'agents:read agents:write' }),
    );
    expectProblem(result, 403);
  });

  it('refuses a request without an authorizer context', async () => {
    expectProblem(await listSessions(apiEvent({ path: '/sessions', caller: null })), 401);
  });

  it('serialises every timestamp as ISO 8601 UTC with milliseconds', async () => {
    const result = await list();
    // The body is Postgres's JSON text: whitespace around the colons as it writes it.
    const stamps = result.body.match(/"\w+At"\s*:\s*"[^"]*"/g) ?? [];
    expect(stamps.length).toBeGreaterThan(20);
    for (const stamp of stamps) expect(stamp).toMatch(/:\s*"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"$/);
    expect(v.is(SessionList, JSON.parse(result.body))).toBe(true);
  });
});
