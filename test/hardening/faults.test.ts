import { count, eq } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '#contract/routes.ts';
import { type DatabaseHandle, openDatabase } from '#db/client.ts';
import { generateToken } from '#db/queries/api-keys.ts';
import { agents } from '#db/schema/index.ts';
import { silentLogger } from '#functions/http/log.ts';
import type { ApiResult } from '#functions/http/types.ts';
import { startGateway } from '#infra/local/gateway.ts';
import { freshDatabase, usingPostgres } from '#test/helpers/database.ts';
import {
  buildWorld,
  httpRequestOf,
  type RouteKey,
  type RouteRequest,
  routeKeys,
  routeRequests,
  toApiEvent,
  type World,
} from '#test/helpers/route-requests.ts';
import { tableStates, writtenTables } from '#test/helpers/table-states.ts';
import { type App, buildApp, checkAnswer, type RouteName } from './support/app.ts';
import { type FlowAnswer, throughAuthorizer } from './support/gateway-flow.ts';
import { send } from './support/http.ts';
import { FaultProxy } from './support/proxy.ts';
import { sleep, within } from './support/timing.ts';

/**
 * The database taken away under a running process, through a TCP proxy this file owns (the
 * Postgres server itself is shared with other test files and is never touched). Real Postgres only.
 * Every route of the route table is sent in each outage (one valid request of each,
 * test/helpers/route-requests.ts), so a new route is covered as soon as it has its request there.
 */
const APP_NAME = 'vaa-fault-test';
/** Short timings so the file stays fast; one test below runs the production defaults. */
const TEST_TIMINGS = { requestTimeoutMs: 1_500, connectTimeoutSeconds: 1 };
/** The Lambda function timeout the deadline must stay under. */
const LAMBDA_TIMEOUT_MS = 10_000;

describe.skipIf(!usingPostgres())(
  'database faults (real Postgres, through a fault proxy; skipped on PGlite, which has no connection to break)',
  () => {
    let direct: DatabaseHandle & { url?: string };
    let world: World;
    let proxy: FaultProxy;
    const opened: DatabaseHandle[] = [];
    let faultsInjected = 0;
    let requests = 0;

    beforeAll(async () => {
      direct = await freshDatabase();
      world = await buildWorld(direct);
      proxy = await FaultProxy.start(direct.url as string);
    });
    afterEach(() => proxy.setMode('pass'));
    afterAll(async () => {
      console.info(`[faults] ${faultsInjected} faults injected, ${requests} requests answered, none hung`);
      await Promise.all(opened.map((h) => h.close().catch(() => {})));
      await proxy?.close();
      await direct?.close();
    });

    /** A process of our own (Lambda-like: one connection) whose database is behind the proxy. */
    async function processBehindProxy(timings: object = TEST_TIMINGS): Promise<App> {
      const url = new URL(proxy.url(direct.url as string));
      url.searchParams.set('application_name', APP_NAME);
      const handle = await openDatabase({ kind: 'postgres', url: url.toString(), poolMax: 1, ...timings });
      opened.push(handle);
      return buildApp({ database: handle, logger: silentLogger });
    }

    /** A route's request, made while the database is up (`request.status`: its answer once served). */
    interface Prepared {
      key: RouteKey;
      request: RouteRequest;
    }
    const prepare = (keys: readonly RouteKey[] = routeKeys): Promise<Prepared[]> =>
      Promise.all(keys.map(async (key) => ({ key, request: await routeRequests[key](world) })));
    const nameOf = (p: Prepared): RouteName => routes[p.key].name;

    /** One request through authorizer and handler, which must answer within `ms`. */
    async function request(app: App, p: Prepared, ms: number): Promise<FlowAnswer & { ms: number }> {
      const { value, ms: took } = await within(
        ms,
        throughAuthorizer(app, nameOf(p), toApiEvent(world, p.key, p.request)),
      );
      expect(value, `${p.key} answered within ${ms} ms`).toBeDefined();
      requests++;
      const answer = value as FlowAnswer;
      if (answer.kind === 'gateway') {
        throw new Error(`API Gateway would answer ${answer.statusCode}: ${String(answer.error ?? '')}`);
      }
      checkAnswer(nameOf(p), answer.result, { allow503: true });
      return { ...answer, ms: took };
    }

    const expectUnavailable = (answer: FlowAnswer, key: RouteKey) => {
      expect(answer.kind === 'handler' && answer.result.statusCode, key).toBe(503);
      if (answer.kind === 'handler') {
        expect(answer.result.headers['retry-after']).toMatch(/^\d+$/);
        // The authorizer could not ask the database either: it deferred, granting nothing.
        expect(answer.authorizer.context).toEqual({ deferred: 'database-unavailable' });
      }
    };
    const expectServed = (answer: FlowAnswer, p: Prepared) => {
      expect(answer.kind, p.key).toBe('handler');
      if (answer.kind === 'handler')
        expect({ route: p.key, status: answer.result.statusCode }, answer.result.body).toEqual({
          route: p.key,
          status: p.request.status,
        });
    };

    /** Every route in turn, each answering 503 (the outage holds), nothing written anywhere. */
    async function expectEveryRouteUnavailable(app: App, batch: Prepared[], ms = 3_000) {
      const before = await tableStates(direct.db);
      for (const p of batch) expectUnavailable(await request(app, p, ms), p.key);
      expect(await tableStates(direct.db)).toEqual(before);
    }
    /** The same requests, served as they would have been had the database never gone. */
    async function expectEveryRouteServed(app: App, batch: Prepared[], ms = 3_000) {
      for (const p of batch) expectServed(await request(app, p, ms), p);
    }

    it('answers 503 with Retry-After on every route while nothing listens from the start, writing nothing, then serves when the database comes', async () => {
      const batch = await prepare();
      await proxy.setMode('refuse');
      faultsInjected++;
      const app = await processBehindProxy();
      await expectEveryRouteUnavailable(app, batch);
      await proxy.setMode('pass');
      // The same process, never restarted: the very requests refused are served now.
      await expectEveryRouteServed(app, batch);
    });

    it('survives the database going away mid-run (connections reset) and recovers by itself, three times over, on every route', async () => {
      const app = await processBehindProxy();
      for (let round = 0; round < 3; round++) {
        await expectEveryRouteServed(app, await prepare());
        const batch = await prepare();
        await proxy.setMode('reset');
        proxy.resetAll();
        faultsInjected++;
        await expectEveryRouteUnavailable(app, batch);
        await proxy.setMode('pass');
        await expectEveryRouteServed(app, batch);
      }
    });

    it('answers at once on every route, without a reconnect storm, when connections are accepted and closed unanswered', async () => {
      const app = await processBehindProxy();
      await expectEveryRouteServed(app, await prepare(['listAgents']));
      const batch = await prepare();
      await proxy.setMode('close');
      proxy.resetAll();
      faultsInjected++;
      const accepted = proxy.accepted;
      await expectEveryRouteUnavailable(app, batch);
      // A handful of attempts per request (authorizer and handler), not thousands of reconnects spinning a core.
      expect(proxy.accepted - accepted).toBeLessThan(batch.length * 10);
      await proxy.setMode('pass');
      await expectEveryRouteServed(app, batch);
    });

    it('turns a black-holed database into 503s within the deadline on every route, all at once, and recovers', async () => {
      const app = await processBehindProxy();
      await expectEveryRouteServed(app, await prepare(['listSessions']));
      const batch = await prepare();
      const before = await tableStates(direct.db);
      proxy.blackholeAll();
      await proxy.setMode('blackhole');
      faultsInjected++;
      const bound = TEST_TIMINGS.requestTimeoutMs * 2 + 1_000; // authorizer, then handler
      const answers = await Promise.all(batch.map((p) => request(app, p, bound)));
      answers.forEach((answer, i) => {
        expectUnavailable(answer, (batch[i] as Prepared).key);
      });
      expect(await tableStates(direct.db)).toEqual(before);
      // The old connection stays dead (its packets are lost); new ones reach the database again.
      await proxy.setMode('pass');
      await expectEveryRouteServed(app, batch, bound);
    });

    it('with the production settings, answers a black-holed request on every route well within the Lambda timeout', async () => {
      const app = await processBehindProxy({});
      await expectEveryRouteServed(app, await prepare(['listAgents']), 5_000);
      const batch = await prepare();
      const before = await tableStates(direct.db);
      proxy.blackholeAll();
      await proxy.setMode('blackhole');
      faultsInjected++;
      // The handlers alone (the authorizer is its own function with its own timeout), all at once:
      // each request's deadline runs from its own start, whatever waits for the one connection.
      const answers = await Promise.all(
        batch.map((p) => within(LAMBDA_TIMEOUT_MS, app[p.key](toApiEvent(world, p.key, p.request)))),
      );
      answers.forEach(({ value, ms }, i) => {
        const { key } = batch[i] as Prepared;
        expect(value, `${key} answered before the Lambda timeout`).toBeDefined();
        expect(value?.statusCode, key).toBe(503);
        expect(ms).toBeLessThan(LAMBDA_TIMEOUT_MS - 1_000);
      });
      requests += answers.length;
      expect(await tableStates(direct.db)).toEqual(before);
      await proxy.setMode('pass');
      for (const p of batch) {
        const { value } = await within(LAMBDA_TIMEOUT_MS, app[p.key](toApiEvent(world, p.key, p.request)));
        expect({ route: p.key, status: value?.statusCode }).toEqual({
          route: p.key,
          status: p.request.status,
        });
      }
    }, 30_000);

    it('through the local gateway: 503 with Retry-After on every route while the database is away, served once it is back', async () => {
      const url = new URL(proxy.url(direct.url as string));
      url.searchParams.set('application_name', APP_NAME);
      const handle = await openDatabase({
        kind: 'postgres',
        url: url.toString(),
        poolMax: 1,
        ...TEST_TIMINGS,
      });
      opened.push(handle);
      const gateway = await startGateway({ deps: { database: handle, logger: silentLogger } });
      try {
        const batch = await prepare();
        const before = await tableStates(direct.db);
        await proxy.setMode('refuse');
        faultsInjected++;
        for (const p of batch) {
          const down = await send(gateway.url, httpRequestOf(world, p.request));
          requests++;
          expect({ route: p.key, status: down.statusCode }).toEqual({ route: p.key, status: 503 });
          expect(down.headers['retry-after']).toMatch(/^\d+$/);
          checkAnswer(nameOf(p), down, { allow503: true });
        }
        expect(await tableStates(direct.db)).toEqual(before);
        await proxy.setMode('pass');
        // API Gateway still caches the authorizer's deferred mark: the handler authenticates itself.
        for (const p of batch) {
          const up = await send(gateway.url, httpRequestOf(world, p.request));
          requests++;
          expect({ route: p.key, status: up.statusCode }).toEqual({ route: p.key, status: p.request.status });
        }
        const stranger = await send(gateway.url, {
          path: '/sessions',
          headers: { authorization: `Bearer ${generateToken()}` },
        });
        expect(stranger.statusCode).toBe(403);
      } finally {
        await gateway.close();
      }
    });

    it('never commits a request it answered 503 for, on any route: a statement stuck behind a lock is cancelled, not left to finish', async () => {
      const admin = postgres(direct.url as string, { max: 1, onnotice: () => {} });
      try {
        // A connection per request, as many function instances would have: none waits for another.
        const app = await processBehindProxy({ ...TEST_TIMINGS, poolMax: routeKeys.length });
        await expectEveryRouteServed(app, await prepare(['listAgents']));
        const batch = await prepare();
        const before = await tableStates(direct.db);
        let answers: ({ value?: ApiResult } | undefined)[] = [];
        await admin.begin(async (tx) => {
          await tx.unsafe(`lock table ${writtenTables.join(', ')} in access exclusive mode`);
          faultsInjected++;
          answers = await Promise.all(
            batch.map((p) => within(3_000, app[p.key](toApiEvent(world, p.key, p.request)))),
          );
          // Nothing of ours may still be waiting to write once the clients have their answers.
          const waiting = await tx`
          select count(*)::int as n from pg_stat_activity
          where datname = current_database() and application_name = ${APP_NAME} and wait_event_type = 'Lock'`;
          expect(waiting[0]?.n).toBe(0);
        });
        answers.forEach((answer, i) => {
          const { key } = batch[i] as Prepared;
          expect({ route: key, status: answer?.value?.statusCode }).toEqual({ route: key, status: 503 });
        });
        requests += answers.length;
        await sleep(200);
        expect(await tableStates(direct.db)).toEqual(before);
        await expectEveryRouteServed(app, batch);
      } finally {
        await admin.end();
      }
    });

    it('serves the next request after the server killed the connection between requests (pg_terminate_backend), on every route', async () => {
      const admin = postgres(direct.url as string, { max: 1, onnotice: () => {} });
      try {
        const app = await processBehindProxy();
        const createdByCaller = async () =>
          (
            await direct.db
              .select({ n: count() })
              .from(agents)
              .where(eq(agents.createdBy, world.caller.principalId))
          )[0]?.n;
        const before = await createdByCaller();
        let created = 0;
        const cycle = [...routeKeys, ...routeKeys.slice(0, 5)];
        for (let i = 0; i + 1 < cycle.length; i++) {
          const [first, next] = await prepare([cycle[i] as RouteKey, cycle[i + 1] as RouteKey]);
          expectServed(await request(app, first as Prepared, 3_000), first as Prepared);
          if (first?.key === 'createAgent') created++;
          const killed = await admin`
          select pg_terminate_backend(pid, 5000) as gone from pg_stat_activity
          where datname = current_database() and application_name = ${APP_NAME}`;
          expect(killed.length).toBeGreaterThan(0);
          faultsInjected++;
          // Half the time at once, half after a pause (a Lambda thawed later).
          if (i % 2) await sleep(50);
          expectServed(await request(app, next as Prepared, 3_000), next as Prepared);
          if (next?.key === 'createAgent') created++;
        }
        // Each create answered 201 made one agent, however its connection was killed around it (the
        // fixtures make the other routes' agents with a key of their own).
        expect(await createdByCaller()).toBe((before ?? 0) + created);
      } finally {
        await admin.end();
      }
    });
  },
);
