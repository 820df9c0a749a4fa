import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Session, SessionList } from '#contract/schemas/session.ts';
import type { DatabaseHandle } from '#db/client.ts';
import { silentLogger } from '#functions/http/log.ts';
import { build } from '#functions/sessions/get.ts';
import { build as buildList } from '#functions/sessions/list.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { apiEvent } from '#test/helpers/events.ts';
import { insertAgent, insertSession } from '#test/helpers/fixtures.ts';
import { bodyOf, expectProblem } from '#test/helpers/responses.ts';
import { createTenant, type Tenant } from '#test/helpers/tenants.ts';

const RESOURCE = '/sessions/{sessionId}';
const NO_SESSION = {
  type: 'https://voice-agent-admin.dev/problems/resource-not-found',
  title: 'Not Found',
  status: 404,
  detail: 'No session with this id in this workspace.',
};

describe('GET /sessions/{sessionId}', () => {
  let handle: DatabaseHandle;
  let getSession: ReturnType<typeof build>;
  let listSessions: ReturnType<typeof buildList>;
  let tenant: Tenant;
  let other: Tenant;
  let theirSessionId: string;

  beforeAll(async () => {
    handle = await freshDatabase();
    const deps = { database: handle, logger: silentLogger };
    getSession = build(deps);
    listSessions = buildList(deps);
    tenant = await createTenant(handle.db);
    other = await createTenant(handle.db);
    const agent = await insertAgent(handle.db, tenant, { n: 1, versions: 3 });
    for (let n = 1; n <= 4; n++)
      await insertSession(handle.db, tenant, agent, { n, version: 1 + (n % 3), ledger: n % 2 === 0 });
    const theirAgent = await insertAgent(handle.db, other, { n: 9 });
    theirSessionId = (await insertSession(handle.db, other, theirAgent, { n: 9, ledger: true })).sessionId;
  });
  afterAll(() => handle.close());

  const get = (sessionId: string, init: { caller?: Tenant; query?: string; scopes?: string } = {}) =>
    getSession(
      apiEvent({
        path: `/sessions/${encodeURIComponent(sessionId)}`,
        resource: RESOURCE,
        pathParameters: { sessionId },
        caller: init.caller ?? tenant,
        query: init.query,
        scopes: init.scopes,
      }),
    );
  const withoutRequestId = ({ requestId: _, ...rest }: { requestId: string }) => rest;

  it('answers each session exactly as its list item: the agent with the version it ran on, conversation, person, ledger', async () => {
    const listed = bodyOf(SessionList, await listSessions(apiEvent({ path: '/sessions', caller: tenant })));
    expect(listed).toHaveLength(4);
    for (const item of listed) {
      const result = await get(item.id);
      expect(result.statusCode).toBe(200);
      expect(result.headers).toMatchObject({
        'content-type': 'application/json',
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
        'x-request-id': expect.any(String),
      });
      const session = bodyOf(Session, result);
      expect(session).toEqual(item);
      expect(session.agent.version.id).toBe(session.agentVersionId);
      expect(session.conversation.id).toBe(session.conversationId);
      expect(session.person.id).toBe(session.personId);
    }
    // Both kinds: with a ledger entry and without one (null, present).
    expect(listed.map((s) => s.ledger === null).sort()).toEqual([false, false, true, true]);
    expect(listed.map((s) => s.agent.version.version).sort()).toEqual([1, 2, 2, 3]);
  });

  it("404s another workspace's session exactly as an unknown one, and an id that cannot be one", async () => {
    expect(withoutRequestId(expectProblem(await get(theirSessionId), 404))).toEqual(NO_SESSION);
    expect(withoutRequestId(expectProblem(await get('zzzzzzzzzzzzzzzzzzzzzzzz'), 404))).toEqual(NO_SESSION);
    for (const id of ['UPPER', 'a'.repeat(25), "a'; select 1 --", ''])
      expect(withoutRequestId(expectProblem(await get(id), 404))).toEqual(NO_SESSION);
    expect(bodyOf(Session, await get(theirSessionId, { caller: other })).workspaceId).toBe(other.workspaceId);
  });

  it('refuses a query parameter (400 naming it) and needs sessions:read (403 naming it)', async () => {
    const [first] = bodyOf(SessionList, await listSessions(apiEvent({ path: '/sessions', caller: tenant })));
    const id = first?.id as string;
    expectProblem(await get(id, { query: 'expand=agent' }), 400, ['expand']);
    expect(expectProblem(await get(id, { scopes: 'agents:read agents:write' }), 403).detail).toMatch(
      /sessions:read/,
    );
  });
});
