import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventTypes } from '#contract/enums.ts';
import { Agent } from '#contract/schemas/agent.ts';
import { type Event, EventList, Event as EventSchema } from '#contract/schemas/event.ts';
import { Session } from '#contract/schemas/session.ts';
import type { DatabaseHandle } from '#db/client.ts';
import { rowsOf } from '#db/queries/rows.ts';
import { build as buildCreateAgent } from '#functions/agents/create.ts';
import { build as buildList } from '#functions/events/list.ts';
import { silentLogger } from '#functions/http/log.ts';
import type { ApiResult } from '#functions/http/types.ts';
import { build as buildComplete } from '#functions/sessions/complete.ts';
import { build as buildCreate } from '#functions/sessions/create.ts';
import { build as buildHeartbeat } from '#functions/sessions/heartbeat.ts';
import { build as buildStart } from '#functions/sessions/start.ts';
import { build as buildSweep } from '#functions/sessions/sweep.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { apiEvent } from '#test/helpers/events.ts';
import { insertAgent } from '#test/helpers/fixtures.ts';
import { bodyOf, expectProblem } from '#test/helpers/responses.ts';
import { createTenant, type Tenant } from '#test/helpers/tenants.ts';

const SCOPES = 'agents:write sessions:write events:read';
let n = 0;
const sessionOf = (e: Event) => (e.data as { sessionId?: string }).sessionId;

describe('the outbox and GET /events', () => {
  let handle: DatabaseHandle;
  let app: Record<
    'createAgent' | 'create' | 'start' | 'heartbeat' | 'complete' | 'list',
    (e: never) => Promise<ApiResult>
  > & {
    sweep: ReturnType<typeof buildSweep>;
  };
  let tenant: Tenant;
  let other: Tenant;
  let agentId: string;

  beforeAll(async () => {
    handle = await freshDatabase({ poolMax: 12 });
    const deps = { database: handle, logger: silentLogger };
    app = {
      createAgent: buildCreateAgent(deps),
      create: buildCreate(deps),
      start: buildStart(deps),
      heartbeat: buildHeartbeat(deps),
      complete: buildComplete(deps),
      list: buildList(deps),
      sweep: buildSweep(deps),
    };
    tenant = await createTenant(handle.db);
    other = await createTenant(handle.db);
    const agent = await insertAgent(handle.db, tenant, { n: 1 });
    agentId = agent.agentId;
    await handle.db.execute(
      sql`update agents set published_version_id = ${agent.versionIds[0]} where id = ${agentId}`,
    );
  });
  afterAll(() => handle.close());

  const post = (
    handler: 'createAgent' | 'create' | 'start' | 'heartbeat' | 'complete',
    path: string,
    body?: unknown,
    caller = tenant,
    resource?: string,
  ) =>
    app[handler](
      apiEvent({
        method: 'POST',
        path,
        resource,
        body,
        caller,
        scopes: SCOPES,
        headers: { 'idempotency-key': `k-${++n}` },
      }) as never,
    );
  const newSession = async (caller = tenant, agent = agentId) =>
    bodyOf(
      Session,
      await post(
        'create',
        '/sessions',
        { agentId: agent, type: 'WEB_VOICE', person: { email: `p${++n}@example.com` } },
        caller,
      ),
    );
  const act = (action: 'start' | 'heartbeat' | 'complete', id: string, body?: unknown) =>
    post(action, `/sessions/${id}/${action}`, body, tenant, `/sessions/{sessionId}/${action}`);
  const list = (query = '', caller = tenant, scopes = SCOPES) =>
    app.list(apiEvent({ path: '/events', query, caller, scopes }) as never);
  const feed = async (query = '', caller = tenant) => {
    const answer = await list(query, caller);
    expect(answer.statusCode).toBe(200);
    return { events: bodyOf(EventList, answer), answer };
  };
  /**
   * The feed from `query` once `done` holds of it. The horizon is the server's: a transaction of
   * another database on it (another test run's) may hold the newest back a moment, as for any consumer.
   */
  const settled = async (query: string, done: (events: Event[]) => boolean) => {
    for (let polls = 0; ; polls++) {
      const page = await feed(query);
      if (done(page.events) || polls >= 2000) return page;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
  /** Every event of the caller's feed, following the cursor. */
  const everything = async (caller = tenant, type = '') => {
    const all: Event[] = [];
    let cursor = '';
    for (;;) {
      const { events, answer } = await feed(`limit=7&cursor=${cursor}${type}`, caller);
      all.push(...events);
      cursor = answer.headers['x-next-cursor'] as string;
      if (!answer.headers.link) return { all, cursor };
    }
  };
  const eventsOf = async (type: string, key: string, value: string) =>
    rowsOf<{ n: number }>(
      await handle.db.execute(
        sql`select count(*)::int as n from events where type = ${type} and data->>${key} = ${value}`,
      ),
    )[0]?.n;

  it('writes one event per change, in its transaction, with the envelope a webhook will carry', async () => {
    const before = (await everything()).cursor;
    const agent = bodyOf(Agent, await post('createAgent', '/agents', { name: `Feed ${n}` }));
    const session = await newSession();
    await act('start', session.id);
    expect((await act('heartbeat', session.id)).statusCode).toBe(204);
    await act('complete', session.id, { traceId: 'tr', usage: { amount: -9 } });
    const { events } = await settled(`cursor=${before}`, (events) => events.length >= 5);
    // One transaction's events are in the order its statements ran; one statement's in no set order.
    expect(events.map((e) => e.type).slice(0, 3)).toEqual([
      'agent.created',
      'session.created',
      'session.started',
    ]);
    expect(
      events
        .map((e) => e.type)
        .slice(3)
        .sort(),
    ).toEqual(['session.completed', 'usage.booked']);
    const byType = (type: string) => events.find((e) => e.type === type);
    for (const e of events) expect(e.workspaceId).toBe(tenant.workspaceId);
    expect(events[0]?.data).toEqual({
      agentId: agent.id,
      name: agent.name,
      slug: agent.slug,
      versionId: agent.version.id,
    });
    expect(events[1]?.data).toMatchObject({ sessionId: session.id, status: 'PENDING', startedAt: null });
    expect(byType('session.completed')?.data).toMatchObject({
      sessionId: session.id,
      status: 'COMPLETED',
      completedMeta: { traceId: 'tr' },
    });
    expect(byType('usage.booked')?.data).toMatchObject({
      sessionId: session.id,
      amount: -9,
      reason: 'VOICE_USAGE',
    });
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
  });

  it('20 concurrent completions: one session.completed, one usage.booked', async () => {
    const session = await newSession();
    await act('start', session.id);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => act('complete', session.id, { usage: { amount: -3 } })),
    );
    expect(new Set(answers.map((a) => a.body)).size).toBe(1);
    expect(await eventsOf('session.completed', 'sessionId', session.id)).toBe(1);
    expect(await eventsOf('usage.booked', 'sessionId', session.id)).toBe(1);
  });

  it('a write that fails leaves no event', async () => {
    const taken = bodyOf(Agent, await post('createAgent', '/agents', { name: 'Taken', slug: `taken-${n}` }));
    const count = async () =>
      rowsOf<{ n: number }>(await handle.db.execute(sql`select count(*)::int as n from events`))[0]?.n;
    const before = await count();
    expectProblem(await post('createAgent', '/agents', { name: 'Again', slug: taken.slug }), 409);
    const archived = await insertAgent(handle.db, tenant, { n: 2 });
    await handle.db.execute(
      sql`update agents set archived_at = now(), published_version_id = ${archived.versionIds[0]} where id = ${archived.agentId}`,
    );
    expectProblem(
      await post('create', '/sessions', {
        agentId: archived.agentId,
        type: 'WEB_VOICE',
        person: { email: 'x@example.com' },
      }),
      409,
    );
    const done = await newSession();
    await act('complete', done.id);
    const after = await count();
    expectProblem(await act('start', done.id), 409);
    expect(await count()).toBe(after);
    expect(after).toBe((before ?? 0) + 2);
  });

  it('the sweep’s completions are events too', async () => {
    const quiet = await newSession();
    await handle.db.execute(
      sql`update sessions set created_at = now() - interval '1 hour' where id = ${quiet.id}`,
    );
    const { cursor } = await everything();
    await app.sweep();
    const all = (
      await settled(`cursor=${cursor}&type=session.completed`, (events) =>
        events.some((e) => sessionOf(e) === quiet.id),
      )
    ).events;
    expect(all.filter((e) => e.type === 'session.completed' && sessionOf(e) === quiet.id)).toEqual([
      expect.objectContaining({
        data: expect.objectContaining({ completedMeta: { reason: 'NEVER_STARTED' } }),
      }),
    ]);
  });

  it('pages every event exactly once while writes run, in order, and each workspace only its own', async () => {
    const writer = await createTenant(handle.db);
    const agent = await insertAgent(handle.db, writer, { n: 3 });
    await handle.db.execute(
      sql`update agents set published_version_id = ${agent.versionIds[0]} where id = ${agent.agentId}`,
    );
    const seen: Event[] = [];
    let cursor = '';
    let writing = true;
    const writes = (async () => {
      for (let i = 0; i < 12; i++) {
        await Promise.all([
          newSession(writer, agent.agentId),
          newSession(other, undefined).catch(() => undefined),
        ]);
      }
      writing = false;
    })();
    while (writing) {
      const { events, answer } = await feed(`limit=3&cursor=${cursor}`, writer);
      seen.push(...events);
      cursor = answer.headers['x-next-cursor'] as string;
    }
    await writes;
    // Poll, as a consumer does, until all are in (see `settled`).
    for (let polls = 0; seen.length < 12 && polls < 2000; polls++) {
      const { events, answer } = await feed(`limit=3&cursor=${cursor}`, writer);
      seen.push(...events);
      cursor = answer.headers['x-next-cursor'] as string;
      if (events.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect((await feed(`cursor=${cursor}`, writer)).events).toEqual([]);
    const stored = rowsOf<{ id: string }>(
      await handle.db.execute(
        sql`select id::text as id from events where workspace_id = ${writer.workspaceId} order by txid, seq`,
      ),
    ).map((r) => r.id);
    expect(stored).toHaveLength(12);
    expect(seen.map((e) => e.id)).toEqual(stored);
    expect(seen.every((e) => e.workspaceId === writer.workspaceId)).toBe(true);
  });

  it('orders by transaction and sequence as numbers: 9 before 10, 99 before 100', async () => {
    const reader = await createTenant(handle.db);
    // Transactions and sequence numbers that cross a digit boundary, in the order the feed owes:
    // compared as text, "10" < "9" and "100" < "99". All long settled.
    const order: Array<[txid: number, seq: number]> = [
      [9, 9_000_000_009],
      [9, 9_000_000_010],
      [10, 9_000_000_001],
      [99, 9_000_000_099],
      [100, 9_000_000_002],
    ];
    for (const [txid, seq] of order) {
      await handle.db.execute(sql`insert into events (seq, type, workspace_id, txid, data)
        overriding system value
        values (${seq}, 'agent.created', ${reader.workspaceId}, ${txid},
          ${JSON.stringify({ agentId: reader.workspaceId, versionId: reader.workspaceId, name: `${seq}`, slug: `s${seq}` })}::jsonb)`);
    }
    const seqsOf = (events: Event[]) => events.map((e) => Number((e.data as { name: string }).name));
    expect(seqsOf((await feed('limit=250', reader)).events)).toEqual(order.map(([, seq]) => seq));
    expect(seqsOf((await everything(reader)).all)).toEqual(order.map(([, seq]) => seq));
    // Paged two at a time, the walk ends, each event once.
    const walked: Event[] = [];
    let cursor = '';
    for (let pages = 0; pages < 10; pages++) {
      const { events, answer } = await feed(`limit=2&cursor=${cursor}`, reader);
      walked.push(...events);
      cursor = answer.headers['x-next-cursor'] as string;
      if (!answer.headers.link) break;
    }
    expect(seqsOf(walked)).toEqual(order.map(([, seq]) => seq));
  });

  it('issues opaque cursors bound to the workspace: another workspace’s is a 400 naming cursor', async () => {
    const { answer } = await feed('limit=1');
    const cursor = answer.headers['x-next-cursor'] as string;
    expect(cursor).toMatch(/^[\w-]{59}$/);
    // The position (the writing transaction's id) does not read in it, nor in its bytes.
    const [first] = rowsOf<{ txid: string }>(
      await handle.db.execute(
        sql`select txid::text as txid from events where workspace_id = ${tenant.workspaceId} order by txid, seq limit 1`,
      ),
    );
    const txid = first?.txid as string;
    expect(cursor).not.toContain(txid);
    expect(Buffer.from(cursor, 'base64url').toString('latin1')).not.toContain(txid);
    expect((await feed(`limit=1&cursor=${cursor}`)).answer.statusCode).toBe(200);
    const stranger = await createTenant(handle.db);
    const refused = expectProblem(await list(`cursor=${cursor}`, stranger), 400, ['cursor']);
    expect(refused.errors?.[0]?.message).toMatch(/another|this workspace/);
    // One bit changed: refused too.
    const bytes = Buffer.from(cursor, 'base64url');
    bytes[20] = (bytes[20] as number) ^ 1;
    expectProblem(await list(`cursor=${bytes.toString('base64url')}`), 400, ['cursor']);
  });

  it('describes the data of every event type (the OpenAPI document says what each one holds)', () => {
    expect(EventSchema.options.map((o) => o.entries.type.literal)).toEqual([...eventTypes]);
  });

  it('filters by type, refuses what it cannot read (400) and keys without events:read (403)', async () => {
    const { all } = await everything(tenant, '&type=usage.booked,agent.created');
    expect(all.length).toBeGreaterThan(0);
    expect(new Set(all.map((e) => e.type))).toEqual(new Set(['usage.booked', 'agent.created']));
    expectProblem(await list('type=session.deleted'), 400, ['type.0']);
    expectProblem(await list('cursor=abc'), 400, ['cursor']);
    expectProblem(await list('limit=0'), 400, ['limit']);
    expectProblem(await list('', tenant, 'sessions:read'), 403);
    // A cursor is a position in the feed: the same with any filter.
    const first = await feed('limit=1');
    const cursor = first.answer.headers['x-next-cursor'] as string;
    expect((await feed(`limit=1&cursor=${cursor}&type=session.created`)).answer.statusCode).toBe(200);
  });
});
