import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '#contract/routes.ts';
import type { Agent } from '#contract/schemas/agent.ts';
import { type DatabaseHandle, openDatabase } from '#db/client.ts';
import { rowsOf } from '#db/queries/rows.ts';
import { silentLogger } from '#functions/http/log.ts';
import type { ApiResult } from '#functions/http/types.ts';
import { freshDatabase, usingPostgres } from '#test/helpers/database.ts';
import { apiEvent } from '#test/helpers/events.ts';
import {
  buildWorld,
  type RouteKey,
  routeKeys,
  routeRequests,
  toApiEvent,
} from '#test/helpers/route-requests.ts';
import { createTenant, type Tenant } from '#test/helpers/tenants.ts';
import { type App, buildApp, checkAnswer, rowCounts } from './support/app.ts';
import { FaultProxy } from './support/proxy.ts';

const POOL = 10;

describe('concurrency', () => {
  let handle: DatabaseHandle & { url?: string };
  let app: App;
  let held = 0;
  /** On the real server: a connection of the test's own, to read the server's statistics. */
  let admin: postgres.Sql | undefined;

  beforeAll(async () => {
    handle = await freshDatabase({ poolMax: POOL });
    app = buildApp({ database: handle, logger: silentLogger });
    if (usingPostgres()) admin = postgres(handle.url as string, { max: 1, onnotice: () => {} });
  });
  afterAll(async () => {
    console.info(`[concurrency] ${held} concurrent requests held, no 5xx`);
    await admin?.end();
    await handle?.close();
  });

  const deadlockCount = async () =>
    (
      await (admin as postgres.Sql)`
      select deadlocks::int as n from pg_stat_database where datname = current_database()`
    )[0]?.n as number;

  const post = (caller: Tenant, body: unknown, headers: Record<string, string> = {}) =>
    app.createAgent(apiEvent({ method: 'POST', path: '/agents', body, headers, caller }));
  const all = async (requests: Promise<ApiResult>[]) => {
    held += requests.length;
    const results = await Promise.all(requests);
    for (const result of results) checkAnswer('create-agent', result);
    return results;
  };
  const agentsOf = async (caller: Tenant) => {
    const result = await app.listAgents(apiEvent({ path: '/agents', query: 'limit=250', caller }));
    return checkAnswer('list-agents', result).body as Agent[];
  };
  const countIn = async (table: 'agents' | 'agent_versions', caller: Tenant) =>
    rowsOf<{ n: number }>(
      await handle.db.execute(
        sql`select count(*)::int as n from ${sql.identifier(table)} where workspace_id = ${caller.workspaceId}`,
      ),
    )[0]?.n;

  it('50 parallel creates with distinct slugs: 50 answers of 201, 50 rows, 50 agents listed', async () => {
    const tenant = await createTenant(handle.db);
    const results = await all(
      Array.from({ length: 50 }, (_, i) => post(tenant, { name: `Parallel ${i}`, slug: `parallel-${i}` })),
    );
    expect(results.map((r) => r.statusCode)).toEqual(Array(50).fill(201));
    expect(await countIn('agents', tenant)).toBe(50);
    expect(await countIn('agent_versions', tenant)).toBe(50);
    const listed = await agentsOf(tenant);
    expect(listed.map((a) => a.slug).sort()).toEqual(
      Array.from({ length: 50 }, (_, i) => `parallel-${i}`).sort(),
    );
    // What was answered is what is stored, byte for byte in the list.
    const created = results.map((r) => JSON.parse(r.body) as Agent).sort((x, y) => x.id.localeCompare(y.id));
    expect([...listed].sort((x, y) => x.id.localeCompare(y.id))).toEqual(created);
  });

  it('slug races: one winner per given slug, distinct derived slugs, and exactly as many rows as 201s', async () => {
    const tenant = await createTenant(handle.db);
    const given = Array.from({ length: 30 }, (_, i) =>
      post(tenant, { name: `Given ${i}`, slug: `race-${i % 10}` }),
    );
    const derived = Array.from({ length: 20 }, () => post(tenant, { name: 'Same Name' }));
    const results = await all([...given, ...derived]);
    const givenResults = results.slice(0, 30);
    for (let slug = 0; slug < 10; slug++) {
      const contenders = givenResults.filter((_, i) => i % 10 === slug);
      expect(contenders.map((r) => r.statusCode).sort()).toEqual([201, 409, 409]);
      for (const loser of contenders.filter((r) => r.statusCode === 409)) {
        expect(JSON.parse(loser.body).errors).toEqual([
          { path: 'slug', message: 'is already used by another agent in this workspace' },
        ]);
      }
    }
    const derivedSlugs = results.slice(30).map((r) => (JSON.parse(r.body) as Agent).slug);
    expect(new Set(derivedSlugs).size).toBe(20);
    const created = results.filter((r) => r.statusCode === 201).length;
    expect(created).toBe(30);
    expect(await countIn('agents', tenant)).toBe(created);
    expect(await countIn('agent_versions', tenant)).toBe(created);
  });

  it('concurrent requests sharing an Idempotency-Key never make two agents, and every 201 is the same answer', async () => {
    const tenant = await createTenant(handle.db);
    const keys = Array.from({ length: 10 }, (_, i) => `race-key-${i}`);
    const results = await all(
      keys.flatMap((key) => [
        ...Array.from({ length: 4 }, () =>
          post(tenant, { name: `Keyed ${key}` }, { 'idempotency-key': key }),
        ),
        post(tenant, { name: `Other body ${key}` }, { 'idempotency-key': key }),
      ]),
    );
    for (let k = 0; k < keys.length; k++) {
      const mine = results.slice(k * 5, k * 5 + 5);
      // Whichever body claimed the key first won it: every 201 is that one answer, replayed; a
      // repeat while it ran was told to retry (409), the other body refused (422).
      const won = mine.filter((r) => r.statusCode === 201);
      expect(new Set(won.map((r) => r.body)).size).toBeLessThanOrEqual(1);
      for (const r of mine) expect([201, 409, 422]).toContain(r.statusCode);
      const winnerIsOther = mine[4]?.statusCode === 201;
      if (winnerIsOther) for (const r of mine.slice(0, 4)) expect([409, 422]).toContain(r.statusCode);
    }
    const agents = await agentsOf(tenant);
    // At most one agent per key, whichever body made it.
    expect(agents.length).toBeLessThanOrEqual(10);
    expect(new Set(agents.map((a) => a.name.replace('Other body ', 'Keyed '))).size).toBe(agents.length);
    // Once settled, every key replays its one answer.
    for (const key of keys) {
      const again = await post(tenant, { name: `Keyed ${key}` }, { 'idempotency-key': key });
      expect([201, 422]).toContain(again.statusCode);
    }
    expect(await countIn('agents', tenant)).toBe(agents.length);
  });

  it('every route at once, five requests of each: each answered as it would be alone, and exactly the rows those answers made', async () => {
    const world = await buildWorld(handle);
    const batch = (
      await Promise.all(
        Array.from({ length: 5 }, () =>
          Promise.all(routeKeys.map(async (key) => ({ key, request: await routeRequests[key](world) }))),
        ),
      )
    ).flat();
    const deadlocks = admin ? await deadlockCount() : 0;
    const before = await rowCounts(handle.db);
    held += batch.length;
    const results = await Promise.all(batch.map((p) => app[p.key](toApiEvent(world, p.key, p.request))));
    results.forEach((result, i) => {
      const { key, request } = batch[i] as (typeof batch)[number];
      checkAnswer(routes[key].name, result);
      expect({ route: key, status: result.statusCode }, result.body).toEqual({
        route: key,
        status: request.status,
      });
    });
    const after = await rowCounts(handle.db);
    const answered = (key: RouteKey) => batch.filter((p) => p.key === key).length;
    expect(after.agents - before.agents).toBe(answered('createAgent'));
    expect(after.agent_versions - before.agent_versions).toBe(
      answered('createAgent') + answered('createVersion'),
    );
    expect(after.sessions - before.sessions).toBe(answered('createSession'));
    // Each completion books its usage once, each credit its entry once.
    expect(after.ledger_entries - before.ledger_entries).toBe(
      answered('completeSession') + answered('createCredit'),
    );
    if (admin) expect(await deadlockCount()).toBe(deadlocks);
  });

  describe.skipIf(!usingPostgres())(
    'on the real server (skipped on PGlite, which runs one statement at a time)',
    () => {
      const stats = async () => {
        const [row] = await (admin as postgres.Sql)`
        select (select deadlocks from pg_stat_database where datname = current_database())::int as deadlocks,
               (select count(*) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid())::int as connections`;
        return row as { deadlocks: number; connections: number };
      };

      it('holds 200 mixed concurrent requests without a deadlock, a 5xx or a connection beyond the pool', async () => {
        const before = await stats();
        const tenant = await createTenant(handle.db);
        const counts = await rowCounts(handle.db);
        const requests: Promise<ApiResult>[] = [];
        for (let i = 0; i < 200; i++) {
          if (i % 4 === 0) requests.push(app.listSessions(apiEvent({ path: '/sessions', caller: tenant })));
          else if (i % 4 === 1)
            requests.push(
              app.listAgents(apiEvent({ path: '/agents', query: 'includeTotal=true', caller: tenant })),
            );
          else
            requests.push(
              post(
                tenant,
                { name: `Mixed ${i % 7}`, ...(i % 3 ? {} : { slug: `mixed-${i % 5}` }) },
                i % 5 ? {} : { 'idempotency-key': `mixed-${i % 9}` },
              ),
            );
        }
        held += requests.length;
        const results = await Promise.all(requests);
        for (const r of results) expect(r.statusCode).toBeLessThan(500);
        const created = results.filter(
          (r) => r.statusCode === 201 && r.headers['idempotent-replayed'] !== 'true',
        );
        const after = await rowCounts(handle.db);
        expect(after.agents - counts.agents).toBe(new Set(created.map((r) => JSON.parse(r.body).id)).size);
        const now = await stats();
        expect(now.deadlocks).toBe(before.deadlocks);
        // The pool never grows past its size, plus the connections the test itself holds.
        expect(now.connections).toBeLessThanOrEqual(POOL + 1);
      });

      it('leaves no connection behind: a process opened, loaded, broken (recycled) and closed holds none', async () => {
        const proxy = await FaultProxy.start(handle.url as string);
        const url = new URL(proxy.url(handle.url as string));
        url.searchParams.set('application_name', 'vaa-leak-test');
        const own = await openDatabase({
          kind: 'postgres',
          url: url.toString(),
          poolMax: 5,
          requestTimeoutMs: 1_500,
        });
        const ownApp = buildApp({ database: own, logger: silentLogger });
        const tenant = await createTenant(handle.db);
        const ours = async () =>
          (
            await (admin as postgres.Sql)`select count(*)::int as n from pg_stat_activity where application_name = 'vaa-leak-test'`
          )[0]?.n;
        try {
          const burst = () =>
            Promise.all(
              Array.from({ length: 40 }, () =>
                ownApp.listAgents(apiEvent({ path: '/agents', caller: tenant })),
              ),
            );
          for (const r of await burst()) expect(r.statusCode).toBe(200);
          expect(await ours()).toBeLessThanOrEqual(5);
          // Cut every connection mid-burst: the client is replaced, the old one must not linger.
          const cut = burst();
          proxy.resetAll();
          for (const r of await cut) expect([200, 503]).toContain(r.statusCode);
          for (const r of await burst()) expect(r.statusCode).toBe(200);
          held += 120;
          await new Promise((done) => setTimeout(done, 300));
          expect(await ours()).toBeLessThanOrEqual(5);
        } finally {
          await own.close();
          await proxy.close();
        }
        for (let i = 0; i < 50 && (await ours()) > 0; i++) await new Promise((done) => setTimeout(done, 100));
        expect(await ours()).toBe(0);
      });
    },
  );
});
