import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Session, SessionList } from '#contract/schemas/session.ts';
import type { DatabaseHandle } from '#db/client.ts';
import { rowsOf } from '#db/queries/rows.ts';
import { silentLogger } from '#functions/http/log.ts';
import type { ApiResult } from '#functions/http/types.ts';
import { build as buildComplete } from '#functions/sessions/complete.ts';
import { build as buildCreate } from '#functions/sessions/create.ts';
import { build as buildHeartbeat } from '#functions/sessions/heartbeat.ts';
import { build as buildList } from '#functions/sessions/list.ts';
import { build as buildStart } from '#functions/sessions/start.ts';
import { build as buildSweep } from '#functions/sessions/sweep.ts';
import { freshDatabase, usingPostgres } from '#test/helpers/database.ts';
import { apiEvent } from '#test/helpers/events.ts';
import { insertAgent } from '#test/helpers/fixtures.ts';
import { bodyOf, expectProblem } from '#test/helpers/responses.ts';
import { createTenant, type Tenant } from '#test/helpers/tenants.ts';

const WRITE = 'sessions:write sessions:read';
let keys = 0;
const freshKey = () => `key-${++keys}-${Date.now()}`;

describe('the session write path', () => {
  let handle: DatabaseHandle;
  let app: {
    create: ReturnType<typeof buildCreate>;
    start: ReturnType<typeof buildStart>;
    heartbeat: ReturnType<typeof buildHeartbeat>;
    complete: ReturnType<typeof buildComplete>;
    list: ReturnType<typeof buildList>;
    sweep: ReturnType<typeof buildSweep>;
  };
  let tenant: Tenant;
  let other: Tenant;
  let agent: { agentId: string; versionIds: string[] };

  const publish = (agentId: string, versionId: string) =>
    handle.db.execute(
      sql`update agents set published_version_id = ${versionId}, status = 'PUBLISHED' where id = ${agentId}`,
    );

  beforeAll(async () => {
    // Room for the concurrent completions below, each on a connection of its own.
    handle = await freshDatabase({ poolMax: 12 });
    const deps = { database: handle, logger: silentLogger };
    app = {
      create: buildCreate(deps),
      start: buildStart(deps),
      heartbeat: buildHeartbeat(deps),
      complete: buildComplete(deps),
      list: buildList(deps),
      sweep: buildSweep(deps),
    };
    tenant = await createTenant(handle.db);
    other = await createTenant(handle.db);
    agent = await insertAgent(handle.db, tenant, { n: 1, versions: 2 });
    await publish(agent.agentId, agent.versionIds[0] as string);
  });
  afterAll(() => handle.close());

  const create = (body: unknown, init: { key?: string | null; caller?: Tenant; scopes?: string } = {}) =>
    app.create(
      apiEvent({
        method: 'POST',
        path: '/sessions',
        caller: init.caller ?? tenant,
        scopes: init.scopes ?? WRITE,
        body,
        headers: init.key === null ? {} : { 'idempotency-key': init.key ?? freshKey() },
      }),
    );
  const transition = (
    action: 'start' | 'heartbeat' | 'complete',
    sessionId: string,
    init: { body?: unknown; caller?: Tenant } = {},
  ) =>
    app[action](
      apiEvent({
        method: 'POST',
        path: `/sessions/${sessionId}/${action}`,
        resource: `/sessions/{sessionId}/${action}`,
        caller: init.caller ?? tenant,
        scopes: WRITE,
        body: init.body,
      }),
    );
  const newSession = async (person: object = { email: `p${++keys}@example.com` }) =>
    bodyOf(Session, await create({ agentId: agent.agentId, type: 'INBOUND_CALL', person }));
  const count = async (query: ReturnType<typeof sql>) =>
    (rowsOf<{ n: number }>(await handle.db.execute(query))[0] as { n: number }).n;

  it('runs the whole lifecycle: PENDING, IN_PROGRESS with heartbeats, COMPLETED with its usage booked', async () => {
    const created = await create({
      agentId: agent.agentId,
      type: 'WEB_VOICE',
      recordAudio: true,
      person: { email: ' Ada@Example.com ', properties: { plan: 'pro' } },
    });
    expect(created.statusCode).toBe(201);
    const pending = bodyOf(Session, created);
    expect(pending).toMatchObject({
      status: 'PENDING',
      type: 'WEB_VOICE',
      recordAudio: true,
      isDemo: false,
      workspaceId: tenant.workspaceId,
      agentId: agent.agentId,
      agentVersionId: agent.versionIds[0],
      startedAt: null,
      endedAt: null,
      completedAt: null,
      lastHeartbeatAt: null,
      completedMeta: null,
      ledger: null,
      name: 'ada@example.com · Agent 1',
    });
    expect(pending.agent.version.id).toBe(agent.versionIds[0]);
    expect(pending.person).toMatchObject({
      email: 'ada@example.com',
      phone: null,
      properties: { plan: 'pro' },
    });
    expect(pending.conversation).toMatchObject({
      personId: pending.personId,
      name: 'ada@example.com · Agent 1',
    });

    const started = bodyOf(Session, await transition('start', pending.id));
    expect(started.status).toBe('IN_PROGRESS');
    expect(started.startedAt).not.toBeNull();
    expect(started.lastHeartbeatAt).toBe(started.startedAt);

    const beat = await transition('heartbeat', pending.id);
    expect(beat.statusCode).toBe(204);
    expect(beat.body).toBe('');
    expect(Date.parse(beat.headers['last-heartbeat-at'] as string)).toBeGreaterThanOrEqual(
      Date.parse(started.lastHeartbeatAt as string),
    );

    const endedAt = new Date().toISOString();
    const completed = bodyOf(
      Session,
      await transition('complete', pending.id, {
        body: { endedAt, traceId: 'trace-1', usage: { amount: -90 } },
      }),
    );
    expect(completed).toMatchObject({
      status: 'COMPLETED',
      endedAt,
      completedMeta: { traceId: 'trace-1' },
      lastHeartbeatAt: beat.headers['last-heartbeat-at'],
    });
    expect(completed.ledger).toMatchObject({
      amount: -90,
      reason: 'VOICE_USAGE',
      sessionId: pending.id,
      agentId: agent.agentId,
      createdBy: tenant.principalId,
      idempotencyKey: `session-usage:${pending.id}`,
    });
    expect(completed.conversation.lastSessionEndedAt).toBe(endedAt);
    // What the write path answers is what the list shows.
    const listed = bodyOf(
      SessionList,
      await app.list(apiEvent({ path: '/sessions', query: `personId=${pending.personId}`, caller: tenant })),
    );
    expect(listed).toEqual([completed]);
  });

  it('requires an Idempotency-Key, and replays the first answer for a repeat', async () => {
    const body = { agentId: agent.agentId, type: 'INBOUND_CALL', person: { phone: '+14155550111' } };
    expectProblem(await create(body, { key: null }), 400, ['Idempotency-Key']);
    const key = freshKey();
    const first = await create(body, { key });
    const again = await create(body, { key });
    expect(again.statusCode).toBe(201);
    expect(again.body).toBe(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    const personId = bodyOf(Session, first).personId;
    expect(await count(sql`select count(*)::int as n from sessions where person_id = ${personId}`)).toBe(1);
  });

  it('finds the person by email, else by phone, and keeps one conversation per person and agent', async () => {
    const a = await newSession({ email: 'grace@example.com' });
    const b = await newSession({ email: 'GRACE@example.com', phone: '+14155550122' });
    const c = await newSession({ phone: '+14155550122' });
    expect(new Set([a.personId, b.personId, c.personId]).size).toBe(1);
    expect(c.person.email).toBe('grace@example.com');
    expect(c.person.phone).toBe('+14155550122');
    expect(new Set([a.conversationId, b.conversationId, c.conversationId]).size).toBe(1);
    // Another agent: the same person, a conversation of its own.
    const second = await insertAgent(handle.db, tenant, { n: 2 });
    await publish(second.agentId, second.versionIds[0] as string);
    const d = bodyOf(
      Session,
      await create({ agentId: second.agentId, type: 'WEB_VOICE', person: { email: 'grace@example.com' } }),
    );
    expect(d.personId).toBe(a.personId);
    expect(d.conversationId).not.toBe(a.conversationId);
    // Concurrent creates for one new person make one person.
    const email = `burst-${Date.now()}@example.com`;
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        create({ agentId: agent.agentId, type: 'WEB_VOICE', person: { email } }),
      ),
    );
    const people = new Set(answers.map((r) => bodyOf(Session, r).personId));
    expect(people.size).toBe(1);
    expect(await count(sql`select count(*)::int as n from persons where email = ${email}`)).toBe(1);
  });

  it('refuses person.properties that is not a JSON object, or has a reserved key, with a 400 naming it', async () => {
    const people = await count(sql`select count(*)::int as n from persons`);
    const person = (properties: unknown) => ({ email: `props-${++keys}@example.com`, properties });
    for (const properties of [['a', 'b'], 'text', 7, null]) {
      const answer = await create({ agentId: agent.agentId, type: 'WEB_VOICE', person: person(properties) });
      expectProblem(answer, 400, ['person.properties']);
    }
    // As a client sends them: JSON text, where `__proto__` is a key like any other.
    const reserved = await create({
      agentId: agent.agentId,
      type: 'WEB_VOICE',
      person: JSON.parse(
        '{"email":"r@example.com","properties":{"__proto__":{"x":1},"constructor":2,"prototype":3,"ok":4}}',
      ),
    });
    const problem = expectProblem(reserved, 400, [
      'person.properties.__proto__',
      'person.properties.constructor',
      'person.properties.prototype',
    ]);
    expect(problem.errors?.[0]?.message).toMatch(/^is a reserved key/);
    // Numbers past a double's range, as sent: JSON.parse makes them Infinity, stored as null.
    const huge = await app.create(
      apiEvent({
        method: 'POST',
        path: '/sessions',
        caller: tenant,
        scopes: WRITE,
        headers: { 'idempotency-key': freshKey(), 'content-type': 'application/json' },
        rawBody: `{"agentId":"${agent.agentId}","type":"WEB_VOICE","person":{"email":"huge@example.com","properties":{"n":1e400,"deep":[{"m":-1e400}],"fine":1e300}}}`,
      }),
    );
    expectProblem(huge, 400, ['person.properties.n', 'person.properties.deep.0.m']);
    expect(await count(sql`select count(*)::int as n from persons`)).toBe(people);
    // An object is kept as sent.
    const kept = await newSession({
      email: `kept-${++keys}@example.com`,
      properties: { plan: 'pro', n: [1, 2] },
    });
    expect(kept.person.properties).toEqual({ plan: 'pro', n: [1, 2] });
  });

  it('keeps one person per email and per phone: an email and a phone of two persons is a 409 naming both', async () => {
    const email = `one-${++keys}@example.com`;
    const phone = `+1415555${String(1000 + keys).slice(-4)}`;
    const byEmail = await newSession({ email });
    const byPhone = await newSession({ phone });
    expect(byPhone.personId).not.toBe(byEmail.personId);
    const people = await count(sql`select count(*)::int as n from persons`);
    const sessions = await count(sql`select count(*)::int as n from sessions`);
    const clash = await create({ agentId: agent.agentId, type: 'WEB_VOICE', person: { email, phone } });
    expect(expectProblem(clash, 409, ['person.email', 'person.phone']).detail).toMatch(
      /two different persons/,
    );
    expect(await count(sql`select count(*)::int as n from persons`)).toBe(people);
    expect(await count(sql`select count(*)::int as n from sessions`)).toBe(sessions);
    // Each is still found by its own identifier.
    expect((await newSession({ phone })).personId).toBe(byPhone.personId);
    expect((await newSession({ email })).personId).toBe(byEmail.personId);
    // The database holds the rule itself: a second live person with that phone is refused.
    await expect(
      handle.db.execute(sql`insert into persons (id, workspace_id, root_person_id, phone)
        values ('dupe', ${tenant.workspaceId}, 'dupe', ${phone})`),
    ).rejects.toThrow();
  });

  it('keeps one person per email and per phone under concurrent creates naming either or both', async () => {
    const email = `race-${++keys}@example.com`;
    const phone = `+1415556${String(1000 + keys).slice(-4)}`;
    const people = [{ email }, { phone }, { email, phone }];
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        create({ agentId: agent.agentId, type: 'WEB_VOICE', person: people[i % 3] }),
      ),
    );
    for (const answer of answers) expect([201, 409]).toContain(answer.statusCode);
    const live = sql`workspace_id = ${tenant.workspaceId} and deleted_at is null and id = root_person_id`;
    expect(await count(sql`select count(*)::int as n from persons where ${live} and email = ${email}`)).toBe(
      1,
    );
    expect(await count(sql`select count(*)::int as n from persons where ${live} and phone = ${phone}`)).toBe(
      1,
    );
  });

  it('runs on a named version of the agent, even one not published', async () => {
    const session = bodyOf(
      Session,
      await create({
        agentId: agent.agentId,
        agentVersionId: agent.versionIds[1],
        type: 'WEB_VOICE',
        name: 'A test call',
        person: { email: 'tester@example.com' },
      }),
    );
    expect(session).toMatchObject({ agentVersionId: agent.versionIds[1], name: 'A test call' });
    expect(session.agent.version.version).toBe(2);
  });

  it('refuses agents it cannot run: unknown (400), another workspace’s (400), unpublished or archived (409)', async () => {
    const person = { email: 'x@example.com' };
    const draft = await insertAgent(handle.db, tenant, { n: 3 });
    const archived = await insertAgent(handle.db, tenant, { n: 4 });
    await publish(archived.agentId, archived.versionIds[0] as string);
    await handle.db.execute(sql`update agents set archived_at = now() where id = ${archived.agentId}`);
    const others = await insertAgent(handle.db, other, { n: 5 });
    await publish(others.agentId, others.versionIds[0] as string);
    const before = await count(sql`select count(*)::int as n from sessions`);
    const people = await count(sql`select count(*)::int as n from persons`);

    expectProblem(await create({ agentId: 'zzzzzzzzzzzzzzzzzzzzzzzz', type: 'WEB_VOICE', person }), 400, [
      'agentId',
    ]);
    expectProblem(await create({ agentId: others.agentId, type: 'WEB_VOICE', person }), 400, ['agentId']);
    expectProblem(
      await create({
        agentId: agent.agentId,
        agentVersionId: others.versionIds[0],
        type: 'WEB_VOICE',
        person,
      }),
      400,
      ['agentVersionId'],
    );
    expectProblem(await create({ agentId: draft.agentId, type: 'WEB_VOICE', person }), 409, [
      'agentVersionId',
    ]);
    expectProblem(await create({ agentId: archived.agentId, type: 'WEB_VOICE', person }), 409, ['agentId']);
    expectProblem(await create({ agentId: agent.agentId, type: 'WEB_VOICE', person: {} }), 400, ['person']);
    expectProblem(
      await create({ agentId: agent.agentId, type: 'PHONE', person: { phone: '555' }, extra: 1 }),
      400,
      ['type', 'person.phone', 'extra'],
    );
    // Nothing was written by any of them, not even the person.
    expect(await count(sql`select count(*)::int as n from sessions`)).toBe(before);
    expect(await count(sql`select count(*)::int as n from persons`)).toBe(people);
  });

  it('answers every illegal transition 409, and a session not in the workspace 404', async () => {
    const pending = await newSession();
    expectProblem(await transition('heartbeat', pending.id), 409, ['status']);
    await transition('start', pending.id);
    await transition('complete', pending.id);
    expectProblem(await transition('start', pending.id), 409, ['status']);
    expectProblem(await transition('heartbeat', pending.id), 409, ['status']);
    for (const action of ['start', 'heartbeat', 'complete'] as const) {
      expectProblem(await transition(action, pending.id, { caller: other }), 404);
      expectProblem(await transition(action, 'not-an-id!'), 404);
    }
  });

  it('answers a repeated transition as the first, and a PENDING session may be completed', async () => {
    const session = await newSession();
    const first = await transition('start', session.id);
    expect((await transition('start', session.id)).body).toBe(first.body);
    const done = await transition('complete', session.id, { body: { usage: { amount: -5 } } });
    const again = await transition('complete', session.id, {
      body: { usage: { amount: -7 }, traceId: 'late' },
    });
    expect(again.body).toBe(done.body);
    expect(bodyOf(Session, again).ledger?.amount).toBe(-5);

    const abandoned = bodyOf(Session, await transition('complete', (await newSession()).id));
    expect(abandoned).toMatchObject({
      status: 'COMPLETED',
      startedAt: null,
      ledger: null,
      completedMeta: null,
    });
  });

  it('books one ledger entry for 10 concurrent completions, each answered the same', async () => {
    const session = await newSession();
    await transition('start', session.id);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        transition('complete', session.id, { body: { traceId: 't', usage: { amount: -(100 + (i % 2)) } } }),
      ),
    );
    for (const answer of answers) expect(answer.statusCode).toBe(200);
    expect(new Set(answers.map((a: ApiResult) => a.body)).size).toBe(1);
    expect(
      await count(sql`select count(*)::int as n from ledger_entries where session_id = ${session.id}`),
    ).toBe(1);
  });

  it('refuses a key without sessions:write (403) and bodies the transitions do not take (400)', async () => {
    const session = await newSession();
    const denied = await app.create(
      apiEvent({
        method: 'POST',
        path: '/sessions',
        caller: tenant,
        scopes: 'sessions:read agents:write',
        body: { agentId: agent.agentId, type: 'WEB_VOICE', person: { email: 'a@example.com' } },
        headers: { 'idempotency-key': freshKey() },
      }),
    );
    expectProblem(denied, 403);
    expectProblem(await transition('start', session.id, { body: { startedAt: 'now' } }), 400, ['startedAt']);
    expectProblem(
      await transition('complete', session.id, {
        body: { endedAt: '2026-02-30T00:00:00.000Z', usage: { amount: -1.5 } },
      }),
      400,
      ['endedAt', 'usage.amount'],
    );
    expect(bodyOf(Session, await transition('start', session.id, { body: {} })).status).toBe('IN_PROGRESS');
  });

  it.each([
    ['month 13', '2026-13-01T10:00:00.000Z'],
    ['day 32', '2026-01-32T10:00:00.000Z'],
    ['February 30', '2026-02-30T10:00:00.000Z'],
    ['hour 99', '2026-01-01T99:00:00.000Z'],
    ['hour 24', '2026-01-01T24:00:00.000Z'],
    ['minute 60', '2026-01-01T10:60:00.000Z'],
    ['second 60', '2026-01-01T10:00:60.000Z'],
    ['year 0000', '0000-01-01T10:00:00.000Z'],
  ])(
    'refuses an endedAt that is no instant (%s) with a 400 naming endedAt, changing nothing',
    async (_, endedAt) => {
      const session = await newSession();
      const body = expectProblem(await transition('complete', session.id, { body: { endedAt } }), 400, [
        'endedAt',
      ]);
      expect(body.errors?.[0]?.message).toBe('must be a real instant');
      expect(
        await count(
          sql`select count(*)::int as n from sessions where id = ${session.id} and status = 'PENDING'`,
        ),
      ).toBe(1);
    },
  );

  it('refuses an endedAt before the session started, or more than the skew ahead, with a 400 naming endedAt', async () => {
    const session = await newSession();
    const started = bodyOf(Session, await transition('start', session.id));
    const before = new Date(Date.parse(started.startedAt as string) - 1).toISOString();
    for (const endedAt of [
      before,
      '2099-01-01T00:00:00.000Z',
      new Date(Date.now() + 6 * 60_000).toISOString(),
    ]) {
      const problem = expectProblem(await transition('complete', session.id, { body: { endedAt } }), 400, [
        'endedAt',
      ]);
      expect(problem.errors?.[0]?.message).toMatch(/^must not be (before|more than 300 seconds ahead)/);
    }
    // Never started: not before it was created.
    const pending = await newSession();
    const created = new Date(Date.parse(pending.createdAt) - 1000).toISOString();
    expectProblem(await transition('complete', pending.id, { body: { endedAt: created } }), 400, ['endedAt']);
    expect(
      await count(
        sql`select count(*)::int as n from sessions where id in (${session.id}, ${pending.id}) and status <> 'COMPLETED'`,
      ),
    ).toBe(2);
    expect(
      await count(
        sql`select count(*)::int as n from events where data->>'id' = ${session.id} and type = 'session.completed'`,
      ),
    ).toBe(0);
    // Its start, and a little ahead of the clock, are fine.
    const ahead = new Date(Date.now() + 60_000).toISOString();
    expect(
      bodyOf(Session, await transition('complete', pending.id, { body: { endedAt: ahead } })).endedAt,
    ).toBe(ahead);
    const done = bodyOf(
      Session,
      await transition('complete', session.id, { body: { endedAt: started.startedAt } }),
    );
    expect(done.endedAt).toBe(started.startedAt);
  });

  it('refuses to start a PENDING session of an agent archived since (409), starting nothing', async () => {
    const archivable = await insertAgent(handle.db, tenant, { n: 40 });
    await publish(archivable.agentId, archivable.versionIds[0] as string);
    const of = async () =>
      bodyOf(
        Session,
        await create({
          agentId: archivable.agentId,
          type: 'WEB_VOICE',
          person: { email: `a${++keys}@example.com` },
        }),
      );
    const pending = await of();
    const raced = await of();
    await handle.db.execute(
      sql`update agents set archived_at = now(), status = 'ARCHIVED' where id = ${archivable.agentId}`,
    );
    expectProblem(await transition('start', pending.id), 409, ['agentId']);
    // Completing it is still allowed: that ends it.
    expect(bodyOf(Session, await transition('complete', pending.id)).status).toBe('COMPLETED');
    expect(
      await count(sql`select count(*)::int as n from sessions where id = ${raced.id} and status = 'PENDING'`),
    ).toBe(1);
    expect(
      await count(
        sql`select count(*)::int as n from events where data->>'id' = ${pending.id} and type = 'session.started'`,
      ),
    ).toBe(0);
  });

  it.skipIf(!usingPostgres())(
    'a start racing an archive waits for it, then finds the agent archived',
    async () => {
      const archivable = await insertAgent(handle.db, tenant, { n: 41 });
      await publish(archivable.agentId, archivable.versionIds[0] as string);
      const session = bodyOf(
        Session,
        await create({
          agentId: archivable.agentId,
          type: 'WEB_VOICE',
          person: { email: `race${++keys}@example.com` },
        }),
      );
      let start: Promise<ApiResult> | undefined;
      await handle.db.transaction(async (tx) => {
        await tx.execute(
          sql`update agents set archived_at = now(), status = 'ARCHIVED' where id = ${archivable.agentId}`,
        );
        start = transition('start', session.id);
        // The start holds on the agent's row until the archive commits.
        const settled = await Promise.race([
          start.then(() => true),
          new Promise((r) => setTimeout(() => r(false), 300)),
        ]);
        expect(settled).toBe(false);
      });
      expectProblem(await (start as Promise<ApiResult>), 409, ['agentId']);
      expect(
        await count(
          sql`select count(*)::int as n from sessions where id = ${session.id} and status = 'PENDING'`,
        ),
      ).toBe(1);
    },
  );

  it('sweeps sessions gone quiet: completed with the reason, usage still booked once afterwards', async () => {
    const quiet = await newSession();
    await transition('start', quiet.id);
    const never = await newSession();
    const alive = await newSession();
    await transition('start', alive.id);
    await handle.db.execute(
      sql`update sessions set last_heartbeat_at = now() - interval '6 minutes' where id = ${quiet.id}`,
    );
    await handle.db.execute(
      sql`update sessions set created_at = now() - interval '6 minutes' where id = ${never.id}`,
    );

    const { swept } = await app.sweep();
    expect(swept).toBe(2);
    const rows = rowsOf<{ id: string; status: string; meta: unknown; ended: boolean }>(
      await handle.db.execute(sql`select id, status, completed_meta as meta,
        ended_at is not distinct from last_heartbeat_at as ended
        from sessions where id in (${quiet.id}, ${never.id}, ${alive.id}) order by id`),
    );
    const byId = Object.fromEntries(rows.map((r) => [r.id, r]));
    expect(byId[quiet.id]).toMatchObject({
      status: 'COMPLETED',
      meta: { reason: 'STALE_HEARTBEAT' },
      ended: true,
    });
    expect(byId[never.id]).toMatchObject({ status: 'COMPLETED', meta: { reason: 'NEVER_STARTED' } });
    expect(byId[alive.id]).toMatchObject({ status: 'IN_PROGRESS' });
    expect((await app.sweep()).swept).toBe(0);

    // The runtime comes back after the sweep: its usage is booked, the sweep's completion stands.
    const late = bodyOf(
      Session,
      await transition('complete', quiet.id, { body: { usage: { amount: -42 } } }),
    );
    expect(late).toMatchObject({ completedMeta: { reason: 'STALE_HEARTBEAT' }, ledger: { amount: -42 } });
    expect(
      bodyOf(Session, await transition('complete', quiet.id, { body: { usage: { amount: -1 } } })).ledger
        ?.amount,
    ).toBe(-42);
  });
});
