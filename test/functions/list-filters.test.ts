import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentList } from '#contract/schemas/agent.ts';
import { SessionList } from '#contract/schemas/session.ts';
import type { DatabaseHandle } from '#db/client.ts';
import { build as buildCreateAgent } from '#functions/agents/create.ts';
import { build as buildListAgents } from '#functions/agents/list.ts';
import { encodeCursor } from '#functions/http/cursor.ts';
import { silentLogger } from '#functions/http/log.ts';
import { listRequest } from '#functions/http/pagination.ts';
import { build as buildListSessions } from '#functions/sessions/list.ts';
import { type App, buildApp } from '#test/hardening/support/app.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { apiEvent } from '#test/helpers/events.ts';
import { at, insertAgent, insertSession } from '#test/helpers/fixtures.ts';
import { bodyOf, expectProblem } from '#test/helpers/responses.ts';
import { createTenant, type Tenant } from '#test/helpers/tenants.ts';

/** Sessions 1..12 on two agents; status, type and ledger vary with n so every filter splits them. */
const statusOf = (n: number) => (['PENDING', 'IN_PROGRESS', 'COMPLETED'] as const)[n % 3];
const typeOf = (n: number): 'WEB_VOICE' | 'INBOUND_CALL' => (n % 2 ? 'WEB_VOICE' : 'INBOUND_CALL');

describe('list filters', () => {
  let handle: DatabaseHandle;
  let tenant: Tenant;
  let listSessions: ReturnType<typeof buildListSessions>;
  let listAgents: ReturnType<typeof buildListAgents>;
  const made: {
    n: number;
    sessionId: string;
    personId: string;
    conversationId: string;
    versionId: string;
    agentId: string;
  }[] = [];

  beforeAll(async () => {
    handle = await freshDatabase();
    const deps = { database: handle, logger: silentLogger };
    listSessions = buildListSessions(deps);
    listAgents = buildListAgents(deps);
    tenant = await createTenant(handle.db);
    const agents = [
      await insertAgent(handle.db, tenant, { n: 1, versions: 2 }),
      await insertAgent(handle.db, tenant, { n: 2, versions: 1 }),
    ];
    for (let n = 1; n <= 12; n++) {
      const agent = agents[n % 2] as (typeof agents)[number];
      const version = agent.versionIds.length > 1 && n > 6 ? 2 : 1;
      const s = await insertSession(handle.db, tenant, agent, {
        n,
        version,
        status: statusOf(n),
        type: typeOf(n),
        ledger: n % 4 === 0,
      });
      made.push({ n, ...s, agentId: agent.agentId });
    }
    // Another workspace with a session, so filters never reach across workspaces.
    const other = await createTenant(handle.db);
    await insertSession(handle.db, other, await insertAgent(handle.db, other), { n: 5 });
  });
  afterAll(() => handle.close());

  const sessions = async (query: string) => {
    const result = await listSessions(apiEvent({ path: '/sessions', query, caller: tenant }));
    return { result, body: bodyOf(SessionList, result) };
  };
  /** Ns of the sessions a query returns, in response order. */
  const ns = async (query: string) => (await sessions(query)).body.map((s) => Number(s.name.split(' ')[1]));
  const newestFirst = (pick: (m: (typeof made)[number]) => boolean) =>
    made
      .filter(pick)
      .map((m) => m.n)
      .reverse();

  describe('GET /sessions', () => {
    it('filters by agentId, several values repeated or comma-separated', async () => {
      const [a, b] = [made[0]?.agentId, made[1]?.agentId];
      expect(await ns(`agentId=${a}`)).toEqual(newestFirst((m) => m.agentId === a));
      expect(await ns(`agentId=${a},${b}`)).toEqual(newestFirst(() => true));
      expect(await ns(`agentId=${a}&agentId=${b}`)).toEqual(newestFirst(() => true));
    });

    it('filters by agentVersionId, personId and conversationId', async () => {
      const m = made[6] as (typeof made)[number];
      expect(await ns(`agentVersionId=${m.versionId}`)).toEqual(
        newestFirst((x) => x.versionId === m.versionId),
      );
      expect(await ns(`personId=${m.personId}`)).toEqual([m.n]);
      expect(await ns(`conversationId=${m.conversationId}`)).toEqual([m.n]);
    });

    it('filters by status and type, combined with AND', async () => {
      expect(await ns('status=PENDING')).toEqual(newestFirst((m) => statusOf(m.n) === 'PENDING'));
      expect(await ns('status=PENDING,COMPLETED&type=WEB_VOICE')).toEqual(
        newestFirst((m) => statusOf(m.n) !== 'IN_PROGRESS' && typeOf(m.n) === 'WEB_VOICE'),
      );
    });

    it('filters by creation time, strictly after and strictly before', async () => {
      expect(await ns(`createdAfter=${at(9)}`)).toEqual([12, 11, 10]);
      expect(await ns(`createdBefore=${at(3)}`)).toEqual([2, 1]);
      expect(await ns(`createdAfter=${at(3)}&createdBefore=${at(6)}`)).toEqual([5, 4]);
      expect(await ns('createdAfter=2026-11-01T10:00:04%2B01:00')).toEqual(newestFirst((m) => m.n > 4));
      expect(await ns('createdBefore=2026-11-01')).toEqual([]);
    });

    it('filters by having a ledger entry or not', async () => {
      expect(await ns('hasLedger=true')).toEqual([12, 8, 4]);
      expect(await ns('hasLedger=false')).toEqual(newestFirst((m) => m.n % 4 !== 0));
    });

    it('orders oldest first with order=asc, and newest first by default or with order=desc', async () => {
      expect(await ns('order=asc')).toEqual(made.map((m) => m.n));
      expect(await ns('order=desc')).toEqual(await ns(''));
    });

    it('adds X-Total-Count only when includeTotal=true, counting every match', async () => {
      const { result } = await sessions('limit=2&status=COMPLETED&includeTotal=true');
      expect(result.headers['x-total-count']).toBe(
        String(made.filter((m) => statusOf(m.n) === 'COMPLETED').length),
      );
      expect((await sessions('limit=2')).result.headers['x-total-count']).toBeUndefined();
      expect((await sessions('includeTotal=false')).result.headers['x-total-count']).toBeUndefined();
    });

    it.each([
      ['agentId=', 'agentId.0'],
      ['agentId=NOT-AN-ID', 'agentId.0'],
      ['agentId=a,,b', 'agentId.1'],
      [`agentId=${Array.from({ length: 51 }, (_, i) => `a${i}`).join(',')}`, 'agentId'],
      ['status=DONE', 'status.0'],
      ['status=pending', 'status.0'],
      ['type=PHONE', 'type.0'],
      ['createdAfter=yesterday', 'createdAfter'],
      ['createdAfter=2026-02-30', 'createdAfter'],
      ['createdAfter=2026-11-21T10:00:00', 'createdAfter'],
      ['createdBefore=2026-13-01', 'createdBefore'],
      ['createdAfter=2026-01-32T10:00:00Z', 'createdAfter'],
      ['createdAfter=2026-01-01T99:00:00Z', 'createdAfter'],
      ['createdAfter=2026-01-01T24:00:00Z', 'createdAfter'],
      ['createdBefore=2026-01-01T10:60:00Z', 'createdBefore'],
      ['createdBefore=2026-01-01T10:00:60.000Z', 'createdBefore'],
      ['hasLedger=yes', 'hasLedger'],
      ['hasLedger=true&hasLedger=false', 'hasLedger'],
      ['order=newest', 'order'],
      ['order=asc&order=desc', 'order'],
      ['includeTotal=1', 'includeTotal'],
      ['cursor=abc', 'cursor'],
      ['cursor=&offset=0', 'cursor'],
      [`cursor=${'x'.repeat(1025)}`, 'cursor'],
    ])('rejects %s with a 400 problem naming "%s"', async (query, path) => {
      expectProblem(await listSessions(apiEvent({ path: '/sessions', query, caller: tenant })), 400, [path]);
    });
  });

  describe('keyset cursors', () => {
    const follow = async (first: string) => {
      const seen: number[] = [];
      let query: string | undefined = first;
      for (let pages = 0; query !== undefined && pages < 20; pages++) {
        const { result, body } = await sessions(query);
        seen.push(...body.map((s) => Number(s.name.split(' ')[1])));
        const link = result.headers.link;
        query = link ? new URL(link.slice(1, link.indexOf('>'))).search.slice(1) : undefined;
      }
      return seen;
    };

    it('pages through every session once, by cursor, starting from an empty cursor', async () => {
      const { result } = await sessions('cursor=&limit=5');
      expect(result.headers.link).toMatch(
        /^<https:\/\/api\.test\/sessions\?cursor=[\w-]+\.[\w-]+&limit=5>; rel="next"$/,
      );
      expect(await follow('cursor=&limit=5')).toEqual(newestFirst(() => true));
    });

    it('keeps the filters and the order along the way', async () => {
      expect(await follow('cursor=&limit=2&order=asc&type=WEB_VOICE')).toEqual(
        made.filter((m) => typeOf(m.n) === 'WEB_VOICE').map((m) => m.n),
      );
    });

    it('stays stable while newer rows are inserted between pages', async () => {
      const t = await createTenant(handle.db);
      const agent = await insertAgent(handle.db, t);
      for (let n = 1; n <= 6; n++) await insertSession(handle.db, t, agent, { n });
      const list = (query: string) => listSessions(apiEvent({ path: '/sessions', query, caller: t }));
      const first = await list('cursor=&limit=3');
      await insertSession(handle.db, t, agent, { n: 50 });
      const link = first.headers.link ?? '';
      const second = await list(new URL(link.slice(1, link.indexOf('>'))).search.slice(1));
      expect(bodyOf(SessionList, second).map((s) => s.name)).toEqual(['Session 3', 'Session 2', 'Session 1']);
    });

    it('refuses a cursor used with other filters or another order', async () => {
      const { result } = await sessions('cursor=&limit=2&status=COMPLETED');
      const link = result.headers.link ?? '';
      const cursor = new URL(link.slice(1, link.indexOf('>'))).searchParams.get('cursor') ?? '';
      const use = (query: string) => listSessions(apiEvent({ path: '/sessions', query, caller: tenant }));
      expect((await use(`cursor=${cursor}&limit=2&status=COMPLETED`)).statusCode).toBe(200);
      expectProblem(await use(`cursor=${cursor}&status=PENDING`), 400, ['cursor']);
      expectProblem(await use(`cursor=${cursor}&status=COMPLETED&order=asc`), 400, ['cursor']);
      // Bound to the workspace too: another's, with the same list and filters, is refused.
      const stranger = await createTenant(handle.db);
      const theirs = listSessions(
        apiEvent({ path: '/sessions', query: `cursor=${cursor}&limit=2&status=COMPLETED`, caller: stranger }),
      );
      expectProblem(await theirs, 400, ['cursor']);
      const tampered = `${cursor.slice(0, 5)}${cursor[5] === 'A' ? 'B' : 'A'}${cursor.slice(6)}`;
      expectProblem(await use(`cursor=${tampered}&status=COMPLETED`), 400, ['cursor']);
    });
  });

  describe('GET /agents', () => {
    let t: Tenant;
    const agents = async (query: string) =>
      bodyOf(AgentList, await listAgents(apiEvent({ path: '/agents', query, caller: t }))).map((a) => a.name);

    beforeAll(async () => {
      t = await createTenant(handle.db);
      const create = buildCreateAgent({ database: handle, logger: silentLogger });
      for (const name of ['Front Desk', 'Back Office', 'front-line 100%', 'Night_Shift']) {
        await create(apiEvent({ method: 'POST', path: '/agents', body: { name }, caller: t }));
      }
    });

    it('filters by slug exactly', async () => {
      expect(await agents('slug=back-office')).toEqual(['Back Office']);
      expect(await agents('slug=back')).toEqual([]);
    });

    it('matches q against the name, ignoring case, with wildcards taken literally', async () => {
      expect(await agents('q=FRONT&order=asc')).toEqual(['Front Desk', 'front-line 100%']);
      expect(await agents('q=100%25')).toEqual(['front-line 100%']);
      expect(await agents('q=_')).toEqual(['Night_Shift']);
      expect(await agents('q=%25')).toEqual(['front-line 100%']);
    });

    it('filters by status and counts with includeTotal', async () => {
      expect(await agents('status=PUBLISHED')).toEqual([]);
      const result = await listAgents(
        apiEvent({ path: '/agents', query: 'status=DRAFT,ARCHIVED&includeTotal=true&limit=1', caller: t }),
      );
      expect(result.headers['x-total-count']).toBe('4');
      expect(bodyOf(AgentList, result)).toHaveLength(1);
    });

    it.each([
      ['status=LIVE', 'status.0'],
      ['slug=', 'slug'],
      ['q=', 'q'],
      [`q=${'x'.repeat(256)}`, 'q'],
      ['slug=a&slug=b', 'slug'],
      ['agentId=abc', 'agentId'],
    ])('rejects %s with a 400 problem naming "%s"', async (query, path) => {
      expectProblem(await listAgents(apiEvent({ path: '/agents', query, caller: t })), 400, [path]);
    });
  });
});

describe('creation-time bounds and cursors', () => {
  let handle: DatabaseHandle;
  let app: App;
  let tenant: Tenant;
  let onBoundary: string;

  beforeAll(async () => {
    handle = await freshDatabase();
    app = buildApp({ database: handle, logger: silentLogger });
    tenant = await createTenant(handle.db);
    // Created at 09:00:01.000 exactly (fixtures' `at(1)`): bounds half a millisecond either side.
    onBoundary = (await insertSession(handle.db, tenant, await insertAgent(handle.db, tenant), { n: 1 }))
      .sessionId;
  });
  afterAll(() => handle?.close());

  const listSessions = (query: string) =>
    app.listSessions(apiEvent({ path: '/sessions', query, caller: tenant }));
  const listAgents = (query: string) => app.listAgents(apiEvent({ path: '/agents', query, caller: tenant }));
  const pathsOf = (body: string) => (JSON.parse(body).errors ?? []).map((e: { path: string }) => e.path);

  describe('an instant or cursor Postgres cannot store is refused by name', () => {
    // Year 0000 passed the pattern; Postgres refused it with an error naming nothing.
    it('names createdAfter when it holds an instant Postgres cannot store', async () => {
      const result = await listSessions('createdAfter=0000-01-01');
      expect(result.statusCode).toBe(400);
      expect(pathsOf(result.body)).toEqual(['createdAfter']);
    });

    // Year 0000 is refused, and so is an offset carrying an instant past 9999.
    it('names createdAfter when an offset carries it past year 9999', async () => {
      const result = await listSessions(`createdAfter=${encodeURIComponent('9999-12-31T23:59-23:59')}`);
      expect(result.statusCode).toBe(400);
      expect(pathsOf(result.body)).toEqual(['createdAfter']);
    });

    // The cursor's checksum is public, so a cursor can be forged with any `c` Date.parse accepts; it
    // stays within the caller's workspace, but reached the database as is.
    it('names cursor when a forged cursor holds a time Postgres cannot read', async () => {
      const binding = listRequest(
        { limit: 25, order: 'desc', cursor: '' },
        'agents',
        tenant.workspaceId,
      ).binding;
      const cursor = encodeCursor({ createdAt: '1 2', id: 'x' }, binding);
      const result = await listAgents(`cursor=${cursor}`);
      expect(result.statusCode).toBe(400);
      expect(pathsOf(result.body)).toEqual(['cursor']);
    });
  });

  describe('createdBefore/createdAfter bounds are compared at full precision, not milliseconds', () => {
    const ids = async (query: string) =>
      bodyOf(SessionList, await listSessions(query)).map((session) => session.id);
    const boundary = at(1); // 2026-11-01T09:00:01.000Z
    const plus = boundary.replace('.000Z', '.0005Z');
    const minus = at(0).replace('.000Z', '.9995Z');

    it('includes a session created half a millisecond before createdBefore', async () => {
      expect(await ids(`createdBefore=${plus}`)).toEqual([onBoundary]);
    });
    it('excludes a session created half a millisecond after createdBefore', async () => {
      expect(await ids(`createdBefore=${minus}`)).toEqual([]);
    });
    it('includes a session created half a millisecond after createdAfter', async () => {
      expect(await ids(`createdAfter=${minus}`)).toEqual([onBoundary]);
    });
    it('excludes a session created half a millisecond before createdAfter', async () => {
      expect(await ids(`createdAfter=${plus}`)).toEqual([]);
    });
    it('compares nanosecond bounds and offsets exactly too', async () => {
      expect(await ids(`createdBefore=${encodeURIComponent('2026-11-01T10:00:01.000000001+01:00')}`)).toEqual(
        [onBoundary],
      );
      expect(await ids('createdBefore=2026-11-01T09:00:01.000000000Z')).toEqual([]);
    });
  });
});
