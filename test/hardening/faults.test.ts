import postgres from 'postgres';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from '#db/client.ts';
import { generateToken } from '#db/queries/api-keys.ts';
import { silentLogger } from '#functions/http/log.ts';
import type { ApiResult } from '#functions/http/types.ts';
import { startGateway } from '#infra/local/gateway.ts';
import { freshDatabase, usingPostgres } from '#test/helpers/database.ts';
import { apiEvent } from '#test/helpers/events.ts';
import { createTenant, type Tenant } from '#test/helpers/tenants.ts';
import { type App, buildApp, checkAnswer, type RouteName, rowCounts } from './support/app.ts';
import { type FlowAnswer, throughAuthorizer } from './support/gateway-flow.ts';
import { send } from './support/http.ts';
import { FaultProxy } from './support/proxy.ts';
import { sleep, within } from './support/timing.ts';

/**
 * The database taken away under a running process, through a TCP proxy this file owns (the
 * Postgres server itself is shared with other test files and is never touched). Real Postgres only.
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
    let tenant: Tenant;
    let proxy: FaultProxy;
    const opened: DatabaseHandle[] = [];
    let faultsInjected = 0;
    let requests = 0;

    beforeAll(async () => {
      direct = await freshDatabase();
      tenant = await createTenant(direct.db);
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

    let n = 0;
    const eventFor = (route: RouteName) =>
      route === 'create-agent'
        ? apiEvent({ method: 'POST', path: '/agents', body: { name: `Fault ${++n}` }, caller: tenant })
        : apiEvent({
            path: route === 'list-agents' ? '/agents' : '/sessions',
            query: 'limit=5',
            caller: tenant,
          });
    const allRoutes: RouteName[] = ['create-agent', 'list-agents', 'list-sessions'];

    /** One request through authorizer and handler, which must answer within `ms`. */
    async function request(app: App, route: RouteName, ms: number): Promise<FlowAnswer & { ms: number }> {
      const { value, ms: took } = await within(ms, throughAuthorizer(app, route, eventFor(route)));
      expect(value, `${route} answered within ${ms} ms`).toBeDefined();
      requests++;
      const answer = value as FlowAnswer;
      if (answer.kind === 'gateway') {
        throw new Error(`API Gateway would answer ${answer.statusCode}: ${String(answer.error ?? '')}`);
      }
      checkAnswer(route, answer.result, { allow503: true });
      return { ...answer, ms: took };
    }

    const expectUnavailable = (answer: FlowAnswer) => {
      expect(answer.kind === 'handler' && answer.result.statusCode).toBe(503);
      if (answer.kind === 'handler') {
        expect(answer.result.headers['retry-after']).toMatch(/^\d+$/);
        // The authorizer could not ask the database either: it deferred, granting nothing.
        expect(answer.authorizer.context).toEqual({ deferred: 'database-unavailable' });
      }
    };
    const expectServed = (answer: FlowAnswer) => {
      expect(answer.kind).toBe('handler');
      if (answer.kind === 'handler')
        expect([200, 201], answer.result.body).toContain(answer.result.statusCode);
    };

    it('answers 503 with Retry-After while nothing listens from the start, then serves when the database comes', async () => {
      await proxy.setMode('refuse');
      faultsInjected++;
      const app = await processBehindProxy();
      for (const route of allRoutes) expectUnavailable(await request(app, route, 3_000));
      await proxy.setMode('pass');
      // The same process, never restarted: the very next request of each route is served.
      for (const route of allRoutes) expectServed(await request(app, route, 3_000));
    });

    it('survives the database going away mid-run (connections reset) and recovers by itself, three times over', async () => {
      const app = await processBehindProxy();
      for (let round = 0; round < 3; round++) {
        for (const route of allRoutes) expectServed(await request(app, route, 3_000));
        await proxy.setMode('reset');
        proxy.resetAll();
        faultsInjected++;
        for (const route of allRoutes) expectUnavailable(await request(app, route, 3_000));
        await proxy.setMode('pass');
        for (const route of allRoutes) expectServed(await request(app, route, 3_000));
      }
    });

    it('answers at once, without a reconnect storm, when connections are accepted and closed unanswered', async () => {
      const app = await processBehindProxy();
      expectServed(await request(app, 'list-agents', 3_000));
      await proxy.setMode('close');
      proxy.resetAll();
      faultsInjected++;
      const accepted = proxy.accepted;
      for (const route of allRoutes) expectUnavailable(await request(app, route, 3_000));
      // A handful of attempts, not thousands of reconnects spinning a core.
      expect(proxy.accepted - accepted).toBeLessThan(30);
      await proxy.setMode('pass');
      for (const route of allRoutes) expectServed(await request(app, route, 3_000));
    });

    it('turns a black-holed database into 503s within the deadline, even for concurrent requests, and recovers', async () => {
      const app = await processBehindProxy();
      expectServed(await request(app, 'list-sessions', 3_000));
      proxy.blackholeAll();
      await proxy.setMode('blackhole');
      faultsInjected++;
      const bound = TEST_TIMINGS.requestTimeoutMs * 2 + 1_000; // authorizer, then handler
      const answers = await Promise.all(
        [...allRoutes, ...allRoutes].map((route) => request(app, route, bound)),
      );
      for (const answer of answers) expectUnavailable(answer);
      // The old connection stays dead (its packets are lost); new ones reach the database again.
      await proxy.setMode('pass');
      for (const route of allRoutes) expectServed(await request(app, route, bound));
    });

    it('with the production settings, answers a black-holed request well within the Lambda timeout', async () => {
      const app = await processBehindProxy({});
      expectServed(await request(app, 'list-agents', 5_000));
      proxy.blackholeAll();
      await proxy.setMode('blackhole');
      faultsInjected++;
      // The handler alone (the authorizer is its own function with its own timeout).
      const event = eventFor('list-agents');
      const { value, ms } = await within(LAMBDA_TIMEOUT_MS, app.listAgents(event));
      expect(value, 'answered before the Lambda timeout').toBeDefined();
      expect(value?.statusCode).toBe(503);
      expect(ms).toBeLessThan(LAMBDA_TIMEOUT_MS - 1_000);
      await proxy.setMode('pass');
      expect(
        (await within(LAMBDA_TIMEOUT_MS, app.listAgents(eventFor('list-agents')))).value?.statusCode,
      ).toBe(200);
    }, 30_000);

    it('through the local gateway: 503 with Retry-After while the database is away, served once it is back', async () => {
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
        const get = () =>
          send(gateway.url, { path: '/sessions', headers: { authorization: `Bearer ${tenant.token}` } });
        await proxy.setMode('refuse');
        faultsInjected++;
        const down = await get();
        requests++;
        expect(down.statusCode).toBe(503);
        expect(down.headers['retry-after']).toMatch(/^\d+$/);
        checkAnswer('list-sessions', down, { allow503: true });
        await proxy.setMode('pass');
        // API Gateway still caches the authorizer's deferred mark: the handler authenticates itself.
        const up = await get();
        requests++;
        expect(up.statusCode).toBe(200);
        const stranger = await send(gateway.url, {
          path: '/sessions',
          headers: { authorization: `Bearer ${generateToken()}` },
        });
        expect(stranger.statusCode).toBe(403);
      } finally {
        await gateway.close();
      }
    });

    it('never commits a create it answered 503 for: a statement stuck behind a lock is cancelled, not left to finish', async () => {
      const admin = postgres(direct.url as string, { max: 1, onnotice: () => {} });
      try {
        const app = await processBehindProxy();
        expectServed(await request(app, 'list-agents', 3_000));
        const before = await rowCounts(direct.db);
        let answer: ApiResult | undefined;
        await admin.begin(async (tx) => {
          await tx`lock table agents in access exclusive mode`;
          faultsInjected++;
          const event = eventFor('create-agent');
          answer = (await within(3_000, app.createAgent(event))).value;
          // Nothing of ours may still be waiting to write once the client has its answer.
          const waiting = await tx`
          select count(*)::int as n from pg_stat_activity
          where datname = current_database() and application_name = ${APP_NAME} and wait_event_type = 'Lock'`;
          expect(waiting[0]?.n).toBe(0);
        });
        expect(answer?.statusCode).toBe(503);
        await sleep(200);
        expect(await rowCounts(direct.db)).toEqual(before);
        expectServed(await request(app, 'create-agent', 3_000));
      } finally {
        await admin.end();
      }
    });

    it('serves the next request after the server killed the connection between requests (pg_terminate_backend)', async () => {
      const admin = postgres(direct.url as string, { max: 1, onnotice: () => {} });
      try {
        const app = await processBehindProxy();
        const before = await rowCounts(direct.db);
        let created = 0;
        for (let i = 0; i < 24; i++) {
          const route = allRoutes[i % 3] as RouteName;
          const first = await request(app, route, 3_000);
          expectServed(first);
          if (route === 'create-agent') created++;
          const killed = await admin`
          select pg_terminate_backend(pid, 5000) as gone from pg_stat_activity
          where datname = current_database() and application_name = ${APP_NAME}`;
          expect(killed.length).toBeGreaterThan(0);
          faultsInjected++;
          // Half the time at once, half after a pause (a Lambda thawed later).
          if (i % 2) await sleep(50);
          const next = await request(app, allRoutes[(i + 1) % 3] as RouteName, 3_000);
          expectServed(next);
          if (allRoutes[(i + 1) % 3] === 'create-agent') created++;
        }
        const after = await rowCounts(direct.db);
        expect(after.agents - before.agents).toBe(created);
      } finally {
        await admin.end();
      }
    });
  },
);
