import { sql } from 'drizzle-orm';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventTypes } from '#contract/enums.ts';
import { Event } from '#contract/schemas/event.ts';
import type { DatabaseHandle } from '#db/client.ts';
import { rowsOf } from '#db/queries/rows.ts';
import { build as buildRelay } from '#functions/events/relay.ts';
import { silentLogger } from '#functions/http/log.ts';
import type { ApiHandler } from '#functions/http/types.ts';
import { build as buildCreate } from '#functions/webhooks/create.ts';
import { build as buildDelete } from '#functions/webhooks/delete.ts';
import { build as buildDeliveries } from '#functions/webhooks/deliveries.ts';
import { build as buildDelivery } from '#functions/webhooks/delivery.ts';
import { build as buildGet } from '#functions/webhooks/get.ts';
import { build as buildList } from '#functions/webhooks/list.ts';
import { build as buildRecover } from '#functions/webhooks/recover.ts';
import { build as buildRedeliver } from '#functions/webhooks/redeliver.ts';
import { build as buildRotate } from '#functions/webhooks/rotate.ts';
import { secretBoxFromEnv } from '#functions/webhooks/secrets.ts';
import { defaultResolve, type Resolve } from '#functions/webhooks/send.ts';
import { build as buildTest } from '#functions/webhooks/test.ts';
import { build as buildUpdate } from '#functions/webhooks/update.ts';
import {
  build as buildWorker,
  defaultWorkerSettings,
  type WorkerSettings,
} from '#functions/webhooks/worker.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { apiEvent } from '#test/helpers/events.ts';
import { createTenant, type Tenant } from '#test/helpers/tenants.ts';
import { selfSignedCertificate } from '#test/helpers/tls-proxy.ts';
import { type Receiver, startReceiver, verified } from '#test/helpers/webhook-receiver.ts';

/**
 * Webhooks end to end: real changes' events claimed by the relay, deliveries queued in the
 * database, the worker sending over HTTP to a real local receiver, each delivery verified with the
 * Standard Webhooks library (`standardwebhooks`) only.
 */
describe('webhooks', () => {
  let handle: DatabaseHandle;
  let receiver: Receiver;
  let a: Tenant;
  let b: Tenant;
  const deps = () => ({ database: handle, logger: silentLogger, allowLoopback: true });
  let h: Record<
    | 'create'
    | 'list'
    | 'get'
    | 'update'
    | 'remove'
    | 'rotate'
    | 'test'
    | 'recover'
    | 'deliveries'
    | 'delivery'
    | 'redeliver',
    ApiHandler
  >;
  let relay: ReturnType<typeof buildRelay>;
  /** Fast retries, short timeouts: the schedule's shape, not its hours. */
  const fast: Partial<WorkerSettings> = { schedule: [40, 40, 40], jitter: 0 };
  const worker = (settings: Partial<WorkerSettings> = {}, resolve: Resolve = defaultResolve) =>
    buildWorker({
      database: handle,
      logger: silentLogger,
      box: secretBoxFromEnv({}),
      settings: {
        ...defaultWorkerSettings({}),
        ...fast,
        ...settings,
        // PGlite runs on this process's thread, the receiver too: a generous limit, but for the timeout's own test.
        policy: { timeoutMs: 5_000, allowLoopback: true, resolve, ...settings.policy },
      },
    });

  beforeAll(async () => {
    handle = await freshDatabase({ poolMax: 6 });
    receiver = await startReceiver();
    a = await createTenant(handle.db, { name: 'A' });
    b = await createTenant(handle.db, { name: 'B' });
    const d = deps();
    h = {
      create: buildCreate(d),
      list: buildList(d),
      get: buildGet(d),
      update: buildUpdate(d),
      remove: buildDelete(d),
      rotate: buildRotate(d),
      test: buildTest(d),
      recover: buildRecover(d),
      deliveries: buildDeliveries(d),
      delivery: buildDelivery(d),
      redeliver: buildRedeliver(d),
    };
    relay = buildRelay({ ...d, publish: async (envelopes) => envelopes.map(() => true) });
  });
  afterAll(async () => {
    await receiver?.close();
    await handle?.close();
  });

  const call = async (
    handler: ApiHandler,
    init: {
      method?: 'GET' | 'POST' | 'PATCH' | 'DELETE';
      resource: string;
      path: string;
      body?: unknown;
      headers?: Record<string, string>;
      query?: string;
      as?: Tenant;
    },
  ) => {
    const result = await handler(
      apiEvent({ ...init, caller: init.as ?? a, scopes: 'webhooks:manage events:read' }),
    );
    return {
      status: result.statusCode,
      headers: result.headers,
      body: result.body ? JSON.parse(result.body) : undefined,
      raw: result.body,
    };
  };

  const createEndpoint = async (url: string, more: Record<string, unknown> = {}, as: Tenant = a) => {
    const answer = await call(h.create, {
      method: 'POST',
      resource: '/webhook-endpoints',
      path: '/webhook-endpoints',
      body: { url, enabledEvents: ['*'], ...more },
      as,
    });
    expect(answer.status).toBe(201);
    return answer.body as { id: string; secret: string; status: string };
  };

  /** Endpoints that get only their test deliveries: no other test's events reach them. */
  const quiet = { enabledEvents: ['balance.low'] };

  /** `count` events of the workspace in one transaction (as one change would write them), in feed order. */
  const writeEvents = async (tenant: Tenant, count: number, type = 'agent.created') =>
    rowsOf<{ id: string }>(
      await handle.db.execute(sql`
        insert into events (type, workspace_id, data)
        select ${type}, ${tenant.workspaceId}, jsonb_build_object('agentId', 'agent' || g, 'name', 'Agent ' || g,
          'slug', 'agent-' || g, 'versionId', 'v' || g)
        from generate_series(1, ${count}) g
        returning id`),
    ).map((r) => r.id);

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  /**
   * Relays until the outbox is empty. The horizon is the server's: another database's transaction
   * on it may hold the newest events back a moment (as in relay.test.ts).
   */
  const relayAll = async () => {
    for (let pass = 0; pass < 4000; pass++) {
      await relay();
      const [left] = rowsOf<{ n: number }>(
        await handle.db.execute(sql`select count(*)::int as n from events where published_at is null`),
      );
      if (left?.n === 0) return;
      await sleep(5);
    }
    throw new Error('the outbox did not drain');
  };
  /** Runs the worker until a run claims nothing (what is due later stays). */
  const deliverDue = async (run = worker()) => {
    for (let i = 0; i < 500; i++) if ((await run()).claimed === 0) return;
  };
  const deliveryRows = async (endpointId: string) =>
    rowsOf<{ id: string; event_id: string; status: string; attempt_count: number; kind: string }>(
      await handle.db.execute(
        sql`select id, event_id, status, attempt_count, kind from webhook_deliveries where endpoint_id = ${endpointId} order by created_at, id`,
      ),
    );
  const detail = async (deliveryId: string, as: Tenant = a) =>
    call(h.delivery, {
      resource: '/webhook-deliveries/{deliveryId}',
      path: `/webhook-deliveries/${deliveryId}`,
      as,
    });

  describe('endpoints', () => {
    it('answers the secret once, stores it sealed, and never answers it again', async () => {
      const created = await createEndpoint(receiver.url('ok'), {
        description: 'Ours',
        metadata: { team: 'x' },
      });
      expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(created.secret.slice(6), 'base64')).toHaveLength(32);
      expect(created).toMatchObject({
        status: 'enabled',
        consecutiveFailures: 0,
        lastSuccessAt: null,
        disabledReason: null,
      });
      const got = await call(h.get, {
        resource: '/webhook-endpoints/{endpointId}',
        path: `/webhook-endpoints/${created.id}`,
      });
      expect(got.status).toBe(200);
      const { secret: _, ...withoutSecret } = created as typeof created & Record<string, unknown>;
      expect(got.body).toEqual(withoutSecret);
      expect(JSON.stringify(got.body)).not.toContain('whsec_');
      const [row] = rowsOf<{ secret_sealed: string }>(
        await handle.db.execute(sql`select secret_sealed from webhook_endpoints where id = ${created.id}`),
      );
      expect(row?.secret_sealed).toMatch(/^v1\.local\./);
      expect(row?.secret_sealed).not.toContain(created.secret.slice(6, 20));
      const listed = await call(h.list, { resource: '/webhook-endpoints', path: '/webhook-endpoints' });
      expect(listed.body.map((e: { id: string }) => e.id)).toContain(created.id);
    });

    it("counts the endpoints and an endpoint's deliveries when asked (X-Total-Count)", async () => {
      const created = await createEndpoint(receiver.url('ok'));
      const all = await call(h.list, { resource: '/webhook-endpoints', path: '/webhook-endpoints' });
      const counted = await call(h.list, {
        resource: '/webhook-endpoints',
        path: '/webhook-endpoints',
        query: 'includeTotal=true&limit=1',
      });
      expect(counted.status).toBe(200);
      expect(counted.body).toHaveLength(1);
      expect(counted.headers['x-total-count']).toBe(String(all.body.length));
      const resource = '/webhook-endpoints/{endpointId}/deliveries';
      const path = `/webhook-endpoints/${created.id}/deliveries`;
      const none = await call(h.deliveries, { resource, path, query: 'includeTotal=true' });
      expect(none.status).toBe(200);
      expect(none.body).toEqual([]);
      expect(none.headers['x-total-count']).toBe('0');
    });

    it('changes only with the current ETag, and deletes with it', async () => {
      const created = await createEndpoint(receiver.url('ok'));
      const path = `/webhook-endpoints/${created.id}`;
      const resource = '/webhook-endpoints/{endpointId}';
      const got = await call(h.get, { resource, path });
      const etag = got.headers.etag as string;
      const noCondition = await call(h.update, {
        method: 'PATCH',
        resource,
        path,
        body: { description: 'x' },
      });
      expect(noCondition.status).toBe(428);
      const changed = await call(h.update, {
        method: 'PATCH',
        resource,
        path,
        body: { description: 'Changed', enabledEvents: ['session.completed'] },
        headers: { 'if-match': etag },
      });
      expect(changed.status).toBe(200);
      expect(changed.body).toMatchObject({ description: 'Changed', enabledEvents: ['session.completed'] });
      const stale = await call(h.update, {
        method: 'PATCH',
        resource,
        path,
        body: { description: 'y' },
        headers: { 'if-match': etag },
      });
      expect(stale.status).toBe(412);
      const staleDelete = await call(h.remove, {
        method: 'DELETE',
        resource,
        path,
        headers: { 'if-match': etag },
      });
      expect(staleDelete.status).toBe(412);
      const deleted = await call(h.remove, {
        method: 'DELETE',
        resource,
        path,
        headers: { 'if-match': changed.headers.etag as string },
      });
      expect(deleted.status).toBe(204);
      expect((await call(h.get, { resource, path })).status).toBe(404);
    });

    it('refuses URLs the stage does not send to, each a 400 naming url', async () => {
      const strict = buildCreate({ database: handle, logger: silentLogger, allowLoopback: false });
      for (const url of [
        'http://hooks.example.com/x',
        `http://127.0.0.1:${receiver.port}/r/ok`,
        `https://[::ffff:127.0.0.1]:${receiver.port}/r/ok`,
        'https://10.1.2.3/x',
        'https://169.254.169.254/latest/meta-data',
        'https://[fd00:ec2::254]/x',
        'https://[::1]/x',
        'https://100.64.0.1/x',
        'ftp://hooks.example.com/x',
      ]) {
        const answer = await strict(
          apiEvent({
            method: 'POST',
            path: '/webhook-endpoints',
            body: { url, enabledEvents: ['*'] },
            caller: a,
            scopes: 'webhooks:manage',
          }),
        );
        expect(answer.statusCode, url).toBe(400);
        expect(JSON.parse(answer.body).errors[0].path, url).toBe('url');
      }
    });
  });

  describe('delivery', () => {
    it('delivers a real change’s event, signed, with the event feed’s id and data', async () => {
      const endpoint = await createEndpoint(receiver.url('first'), { enabledEvents: ['agent.created'] });
      const [eventId] = await writeEvents(a, 1);
      await relayAll();
      await deliverDue();
      const got = receiver.at('first');
      expect(got).toHaveLength(1);
      const [request] = got;
      if (!request) throw new Error('no request');
      expect(request.headers['webhook-id']).toBe(eventId);
      const body = verified(endpoint.secret, request) as { type: string; timestamp: string; data: unknown };
      expect(body).toEqual({
        type: 'agent.created',
        timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
        data: { agentId: 'agent1', name: 'Agent 1', slug: 'agent-1', versionId: 'v1' },
      });
      const [delivery] = await deliveryRows(endpoint.id);
      const read = await detail(delivery?.id as string);
      expect(read.body).toMatchObject({
        eventId,
        status: 'succeeded',
        attemptCount: 1,
        kind: 'event',
        nextAttemptAt: null,
      });
      expect(read.body.attempts).toEqual([
        {
          at: expect.any(String),
          statusCode: 200,
          durationMs: expect.any(Number),
          response: 'ok',
          error: null,
        },
      ]);
      const endpointNow = await call(h.get, {
        resource: '/webhook-endpoints/{endpointId}',
        path: `/webhook-endpoints/${endpoint.id}`,
      });
      expect(endpointNow.body).toMatchObject({ consecutiveFailures: 0, lastSuccessAt: expect.any(String) });
    });

    it('records each failing receiver’s attempt and schedules the retry', async () => {
      const cases = {
        fail: { statusCode: 500, response: 'receiver broke', error: null },
        silent: { statusCode: null, response: null, error: 'no complete answer within 400 ms' },
        hang: { statusCode: 200, response: 'partial', error: 'no complete answer within 400 ms' },
        close: {
          statusCode: null,
          response: null,
          error: expect.stringMatching(/socket hang up|ECONNRESET/),
        },
        redirect: { statusCode: 302, response: null, error: 'redirects are not followed' },
      };
      const ids: Record<string, string> = {};
      for (const name of Object.keys(cases)) ids[name] = (await createEndpoint(receiver.url(name), quiet)).id;
      await call(h.test, {
        method: 'POST',
        resource: '/webhook-endpoints/{endpointId}/test',
        path: `/webhook-endpoints/${ids.fail}/test`,
        body: { eventType: 'session.completed' },
      });
      for (const name of Object.keys(cases).filter((n) => n !== 'fail'))
        await call(h.test, {
          method: 'POST',
          resource: '/webhook-endpoints/{endpointId}/test',
          path: `/webhook-endpoints/${ids[name]}/test`,
        });
      await deliverDue(
        worker({
          schedule: [60_000],
          policy: { timeoutMs: 400, allowLoopback: true, resolve: defaultResolve },
        }),
      );
      for (const [name, expected] of Object.entries(cases)) {
        const [row] = await deliveryRows(ids[name] as string);
        const read = await detail(row?.id as string);
        expect(read.body, name).toMatchObject({
          status: 'failed',
          attemptCount: 1,
          nextAttemptAt: expect.any(String),
        });
        expect(read.body.attempts, name).toEqual([
          { at: expect.any(String), durationMs: expect.any(Number), ...expected },
        ]);
        const due = Date.parse(read.body.nextAttemptAt) - Date.parse(read.body.attempts[0].at);
        expect(due, name).toBeGreaterThan(55_000);
      }
      // The redirect's target was never asked.
      expect(receiver.at('redirect-target')).toHaveLength(0);
    });

    it('answers compact JSON: endpoints, deliveries and a delivery with its attempts', async () => {
      const created = await createEndpoint(receiver.url('fail'), quiet);
      const path = `/webhook-endpoints/${created.id}`;
      const queued = await call(h.test, {
        method: 'POST',
        resource: '/webhook-endpoints/{endpointId}/test',
        path: `${path}/test`,
      });
      await deliverDue();
      const answers = [
        queued,
        await call(h.get, { resource: '/webhook-endpoints/{endpointId}', path }),
        // The newest only: other tests' endpoints carry metadata, a client's own object, kept as stored.
        await call(h.list, { resource: '/webhook-endpoints', path: '/webhook-endpoints', query: 'limit=1' }),
        await call(h.deliveries, {
          resource: '/webhook-endpoints/{endpointId}/deliveries',
          path: `${path}/deliveries`,
        }),
        await detail(queued.body.id),
      ];
      expect(answers.at(-1)?.body.attempts).toHaveLength(1);
      for (const answer of answers) expect(answer.raw).toBe(JSON.stringify(answer.body));
    });

    it('retries on the schedule, succeeds when the receiver recovers, and gives up after the last', async () => {
      let answers = [500, 500, 200];
      receiver.set('flaky', (_req, res) => res.writeHead(answers.shift() ?? 500).end());
      const flaky = await createEndpoint(receiver.url('flaky'), quiet);
      const dead = await createEndpoint(receiver.url('fail'), quiet);
      for (const id of [flaky.id, dead.id])
        await call(h.test, {
          method: 'POST',
          resource: '/webhook-endpoints/{endpointId}/test',
          path: `/webhook-endpoints/${id}/test`,
        });
      for (let i = 0; i < 6; i++) {
        await deliverDue();
        await sleep(60);
      }
      expect((await deliveryRows(flaky.id))[0]).toMatchObject({ status: 'succeeded', attempt_count: 3 });
      expect((await deliveryRows(dead.id))[0]).toMatchObject({ status: 'dead', attempt_count: 4 });
      answers = [];
      const read = await call(h.get, {
        resource: '/webhook-endpoints/{endpointId}',
        path: `/webhook-endpoints/${dead.id}`,
      });
      expect(read.body).toMatchObject({
        status: 'enabled',
        consecutiveFailures: 4,
        firstFailureAt: expect.any(String),
      });
    });

    it('one run goes on past a claim its endpoint’s in-flight bound cut short, while deliveries are due', async () => {
      const endpoint = await createEndpoint(receiver.url('bounded'), quiet);
      for (let i = 0; i < 25; i++)
        await call(h.test, {
          method: 'POST',
          resource: '/webhook-endpoints/{endpointId}/test',
          path: `/webhook-endpoints/${endpoint.id}/test`,
        });
      // Each claim takes at most 10 of the endpoint's deliveries, a third of a batch of 30.
      const run = await worker({ batch: 30, perEndpoint: 10 })({ budgetMs: 60_000 });
      expect(run).toMatchObject({ succeeded: 25 });
      expect(receiver.at('bounded')).toHaveLength(25);
      expect(receiver.peak('bounded')).toBeLessThanOrEqual(10);
    });

    it('a receiver that hangs holds up only its own deliveries: others go out meanwhile', async () => {
      let answer: (() => void) | undefined;
      receiver.set('held', (_req, res) => {
        answer = () => res.writeHead(200).end();
      });
      const held = await createEndpoint(receiver.url('held'), quiet);
      const prompt = await createEndpoint(receiver.url('prompt'), quiet);
      const sendTest = (id: string) =>
        call(h.test, {
          method: 'POST',
          resource: '/webhook-endpoints/{endpointId}/test',
          path: `/webhook-endpoints/${id}/test`,
        });
      const waitFor = async (done: () => boolean) => {
        for (let i = 0; i < 4000 && !done(); i++) await sleep(5);
        expect(done()).toBe(true);
      };
      await sendTest(held.id);
      const stop = new AbortController();
      // A send timeout longer than the test's: only the worker going on can deliver `prompt`.
      const policy = { timeoutMs: 600_000 } as WorkerSettings['policy'];
      const run = worker({ policy })({ budgetMs: 600_000, signal: stop.signal });
      await waitFor(() => answer !== undefined);
      await sendTest(prompt.id);
      await waitFor(() => receiver.at('prompt').length === 1);
      stop.abort();
      answer?.();
      expect(await run).toEqual({ claimed: 2, succeeded: 2 });
    });

    it('waits a 429’s Retry-After', async () => {
      const busy = await createEndpoint(receiver.url('busy'), quiet);
      await call(h.test, {
        method: 'POST',
        resource: '/webhook-endpoints/{endpointId}/test',
        path: `/webhook-endpoints/${busy.id}/test`,
      });
      await deliverDue();
      const [row] = await deliveryRows(busy.id);
      const read = await detail(row?.id as string);
      const wait = Date.parse(read.body.nextAttemptAt) - Date.parse(read.body.attempts[0].at);
      expect(wait).toBeGreaterThanOrEqual(6_900);
      expect(wait).toBeLessThan(8_000);
    });

    it('disables an endpoint that answers 410, and one failing for 5 days, each with an event', async () => {
      const gone = await createEndpoint(receiver.url('gone'), quiet);
      const failing = await createEndpoint(receiver.url('fail'), quiet);
      await handle.db.execute(
        sql`update webhook_endpoints set first_failure_at = now() - interval '5 days 1 minute', consecutive_failures = 40 where id = ${failing.id}`,
      );
      for (const id of [gone.id, failing.id])
        await call(h.test, {
          method: 'POST',
          resource: '/webhook-endpoints/{endpointId}/test',
          path: `/webhook-endpoints/${id}/test`,
        });
      await deliverDue(worker({ schedule: defaultWorkerSettings({}).schedule }));
      const read = async (id: string) =>
        (await call(h.get, { resource: '/webhook-endpoints/{endpointId}', path: `/webhook-endpoints/${id}` }))
          .body;
      expect(await read(gone.id)).toMatchObject({
        status: 'auto_disabled',
        disabledReason: 'the endpoint answered 410 Gone',
      });
      expect(await read(failing.id)).toMatchObject({
        status: 'auto_disabled',
        disabledReason: 'every delivery failed for 120 hours',
      });
      expect((await deliveryRows(gone.id))[0]).toMatchObject({ status: 'dead' });
      const events = rowsOf<{ data: { endpointId: string; reason: string } }>(
        await handle.db.execute(
          sql`select data from events where type = 'webhook_endpoint.disabled' and workspace_id = ${a.workspaceId}`,
        ),
      ).map((e) => e.data.endpointId);
      expect(events.sort()).toEqual([gone.id, failing.id].sort());
    });

    it('signs with both secrets during a rotation’s grace, only the new one after', async () => {
      const endpoint = await createEndpoint(receiver.url('rotating'), quiet);
      const rotate = (grace: number) =>
        call(h.rotate, {
          method: 'POST',
          resource: '/webhook-endpoints/{endpointId}/secret/rotate',
          path: `/webhook-endpoints/${endpoint.id}/secret/rotate`,
          body: { gracePeriodSeconds: grace },
        });
      const rotated = await rotate(3600);
      expect(rotated.status).toBe(200);
      const second = rotated.body.secret as string;
      expect(second).not.toBe(endpoint.secret);
      expect(rotated.body.previousSecretExpiresAt).toEqual(expect.any(String));
      const test = () =>
        call(h.test, {
          method: 'POST',
          resource: '/webhook-endpoints/{endpointId}/test',
          path: `/webhook-endpoints/${endpoint.id}/test`,
        });
      await test();
      await deliverDue();
      const during = receiver.at('rotating').at(-1);
      if (!during) throw new Error('nothing received');
      expect(during.headers['webhook-signature']?.split(' ')).toHaveLength(2);
      expect(verified(endpoint.secret, during)).toBeDefined();
      expect(verified(second, during)).toBeDefined();
      // The grace ends.
      await handle.db.execute(
        sql`update webhook_endpoints set previous_secret_expires_at = now() - interval '1 second' where id = ${endpoint.id}`,
      );
      await test();
      await deliverDue();
      const after = receiver.at('rotating').at(-1);
      if (!after || after === during) throw new Error('nothing received after');
      expect(after.headers['webhook-signature']?.split(' ')).toHaveLength(1);
      expect(verified(second, after)).toBeDefined();
      expect(verified(endpoint.secret, after)).toBeUndefined();
      expect((await rotate(86_401)).status).toBe(400);
    });

    it('redelivers with the same webhook-id and body', async () => {
      const endpoint = await createEndpoint(receiver.url('again'), { enabledEvents: ['agent.created'] });
      await writeEvents(a, 1);
      await relayAll();
      await deliverDue();
      const [first] = await deliveryRows(endpoint.id);
      const answer = await call(h.redeliver, {
        method: 'POST',
        resource: '/webhook-deliveries/{deliveryId}/redeliver',
        path: `/webhook-deliveries/${first?.id}/redeliver`,
      });
      expect(answer.status).toBe(202);
      expect(answer.body).toMatchObject({ eventId: first?.event_id, kind: 'redelivery', status: 'pending' });
      await deliverDue();
      const [one, two] = receiver.at('again');
      expect(two?.headers['webhook-id']).toBe(one?.headers['webhook-id']);
      expect(two?.body).toBe(one?.body);
      expect(verified(endpoint.secret, two as NonNullable<typeof two>)).toBeDefined();
    });

    it('after an outage, recovers 1,000 missed events: each delivered once, verified', async () => {
      let down = true;
      receiver.set('outage', (_req, res) =>
        down ? res.writeHead(503).end('down') : res.writeHead(204).end(),
      );
      // A workspace of its own: the other tests' endpoints take no part.
      const c = await createTenant(handle.db, { name: 'C' });
      const endpoint = await createEndpoint(
        receiver.url('outage'),
        { enabledEvents: ['session.completed'] },
        c,
      );
      const since = new Date(Date.now() - 1000).toISOString();
      const ids = await writeEvents(c, 1000, 'session.completed');
      await relayAll();
      // Retries far off: only the recovery delivers.
      const run = worker({ schedule: [3_600_000], perEndpoint: 10, batch: 50 });
      await deliverDue(run);
      expect(receiver.at('outage')).toHaveLength(1000);
      down = false;
      const before = receiver.at('outage').length;
      const recovered = await call(h.recover, {
        method: 'POST',
        resource: '/webhook-endpoints/{endpointId}/recover',
        path: `/webhook-endpoints/${endpoint.id}/recover`,
        body: { since },
        as: c,
      });
      expect(recovered).toMatchObject({ status: 202, body: { queued: 1000 } });
      await deliverDue(run);
      const after = receiver.at('outage').slice(before);
      expect(after).toHaveLength(1000);
      expect(new Set(after.map((r) => r.headers['webhook-id']))).toEqual(new Set(ids));
      for (const r of after) expect(verified(endpoint.secret, r)).toBeDefined();
      expect(receiver.peak('outage')).toBeLessThanOrEqual(10);
      // A second recovery finds nothing left to send.
      const again = await call(h.recover, {
        method: 'POST',
        resource: '/webhook-endpoints/{endpointId}/recover',
        path: `/webhook-endpoints/${endpoint.id}/recover`,
        body: { since },
        as: c,
      });
      expect(again.body).toEqual({ queued: 0 });
      const [twice] = rowsOf<{ n: number }>(
        await handle.db.execute(sql`
          select count(*)::int as n from (
            select d.event_id from webhook_attempts t join webhook_deliveries d on d.id = t.delivery_id
            where d.endpoint_id = ${endpoint.id} and t.status_code between 200 and 299
            group by d.event_id having count(*) > 1) x`),
      );
      expect(twice?.n).toBe(0);
    }, 300_000);
  });

  describe('test deliveries', () => {
    it("send each event type's example data, valid against the event feed's schema", async () => {
      const endpoint = await createEndpoint(receiver.url('examples'), quiet);
      for (const eventType of eventTypes) {
        const queued = await call(h.test, {
          method: 'POST',
          resource: '/webhook-endpoints/{endpointId}/test',
          path: `/webhook-endpoints/${endpoint.id}/test`,
          body: { eventType },
        });
        expect(queued.status, eventType).toBe(202);
        expect(queued.body, eventType).toMatchObject({ eventType, kind: 'test', status: 'pending' });
      }
      await deliverDue();
      const got = receiver.at('examples');
      expect(new Set(got.map((r) => JSON.parse(r.body).type))).toEqual(new Set(eventTypes));
      for (const r of got) {
        const body = verified(endpoint.secret, r) as { type: string; timestamp: string; data: unknown };
        expect(body, r.body).toBeDefined();
        // The envelope GET /events would show for it: the feed's own schema, strict objects throughout.
        const asFeedEvent = {
          id: r.headers['webhook-id'],
          type: body.type,
          occurredAt: body.timestamp,
          workspaceId: a.workspaceId,
          data: body.data,
        };
        const checked = v.safeParse(Event, asFeedEvent);
        expect(checked.issues?.map((i) => `${v.getDotPath(i)}: ${i.message}`) ?? [], body.type).toEqual([]);
      }
    });
  });

  describe('https', () => {
    let trusted: Receiver;
    let untrusted: Receiver;
    let ca: string;
    beforeAll(async () => {
      // Made here by openssl, each its own self-signed root; the sender trusts only the first.
      const first = selfSignedCertificate(['IP:127.0.0.1']);
      ca = first.cert;
      trusted = await startReceiver(first);
      untrusted = await startReceiver(selfSignedCertificate(['IP:127.0.0.1']));
    });
    afterAll(async () => {
      await trusted?.close();
      await untrusted?.close();
    });
    const httpsWorker = (extraCa: string[]) =>
      worker({
        schedule: [60_000],
        policy: { timeoutMs: 5_000, allowLoopback: true, resolve: defaultResolve, extraCa },
      });

    it('delivers over TLS to a receiver whose CA the sender is told to trust, verified', async () => {
      const endpoint = await createEndpoint(trusted.url('secure'), quiet);
      expect(endpoint.status).toBe('enabled');
      await call(h.test, {
        method: 'POST',
        resource: '/webhook-endpoints/{endpointId}/test',
        path: `/webhook-endpoints/${endpoint.id}/test`,
        body: { eventType: 'session.completed' },
      });
      await deliverDue(httpsWorker([ca]));
      const [request] = trusted.at('secure');
      if (!request) throw new Error('nothing received over TLS');
      expect(verified(endpoint.secret, request)).toMatchObject({ type: 'session.completed' });
      const [row] = await deliveryRows(endpoint.id);
      expect(row).toMatchObject({ status: 'succeeded', attempt_count: 1 });
    });

    it('fails, and records why, when the receiver’s certificate is not one the sender trusts', async () => {
      // A certificate nobody vouches for; and the trusted one, to a sender not told of its CA.
      const cases = [
        { endpoint: await createEndpoint(untrusted.url('impostor'), quiet), extraCa: [ca] },
        { endpoint: await createEndpoint(trusted.url('unannounced'), quiet), extraCa: [] },
      ];
      for (const { endpoint, extraCa } of cases) {
        await call(h.test, {
          method: 'POST',
          resource: '/webhook-endpoints/{endpointId}/test',
          path: `/webhook-endpoints/${endpoint.id}/test`,
        });
        await deliverDue(httpsWorker(extraCa));
        const [row] = await deliveryRows(endpoint.id);
        const read = await detail(row?.id as string);
        expect(read.body).toMatchObject({
          status: 'failed',
          attemptCount: 1,
          nextAttemptAt: expect.any(String),
        });
        expect(read.body.attempts).toEqual([
          {
            at: expect.any(String),
            durationMs: expect.any(Number),
            statusCode: null,
            response: null,
            error: 'DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate',
          },
        ]);
      }
      expect(untrusted.at('impostor')).toHaveLength(0);
      expect(trusted.at('unannounced')).toHaveLength(0);
    });
  });

  describe('safety', () => {
    it('refuses, on each attempt, a name resolving to the metadata address or a private one', async () => {
      const endpoint = await createEndpoint(`http://metadata.test:${receiver.port}/r/ok`);
      await call(h.test, {
        method: 'POST',
        resource: '/webhook-endpoints/{endpointId}/test',
        path: `/webhook-endpoints/${endpoint.id}/test`,
      });
      const toMetadata: Resolve = async () => [{ address: '169.254.169.254', family: 4 }];
      await deliverDue(worker({ schedule: [60_000] }, toMetadata));
      const [row] = await deliveryRows(endpoint.id);
      const read = await detail(row?.id as string);
      expect(read.body.attempts[0]).toMatchObject({
        statusCode: null,
        error: 'refused: metadata.test resolves to 169.254.169.254 is not a public address',
      });
    });

    it('refuses loopback written as IPv4-mapped IPv6 where loopback is not allowed', async () => {
      const endpoint = await createEndpoint(receiver.url('ok'));
      await handle.db.execute(
        sql`update webhook_endpoints set url = ${`http://[::ffff:127.0.0.1]:${receiver.port}/r/mapped`} where id = ${endpoint.id}`,
      );
      await call(h.test, {
        method: 'POST',
        resource: '/webhook-endpoints/{endpointId}/test',
        path: `/webhook-endpoints/${endpoint.id}/test`,
      });
      await deliverDue(
        worker({
          schedule: [60_000],
          policy: { timeoutMs: 400, allowLoopback: false, resolve: defaultResolve },
        }),
      );
      const [row] = await deliveryRows(endpoint.id);
      const read = await detail(row?.id as string);
      expect(read.body.attempts[0]).toMatchObject({
        statusCode: null,
        error: expect.stringMatching(/^refused: /),
      });
      expect(receiver.at('mapped')).toHaveLength(0);
    });
  });

  describe('tenants', () => {
    it('never shows, changes or triggers another workspace’s endpoints or deliveries', async () => {
      const ours = await createEndpoint(receiver.url('tenant-a'), { enabledEvents: ['usage.booked'] });
      const theirs = await createEndpoint(receiver.url('tenant-b'), { enabledEvents: ['usage.booked'] }, b);
      await writeEvents(a, 3, 'usage.booked');
      await relayAll();
      await deliverDue();
      // At least once: each of the three events (a timeout under load may send one twice).
      expect(new Set(receiver.at('tenant-a').map((r) => r.headers['webhook-id'])).size).toBe(3);
      expect(receiver.at('tenant-b')).toHaveLength(0);
      const [delivery] = await deliveryRows(ours.id);
      const resource = '/webhook-endpoints/{endpointId}';
      const path = `/webhook-endpoints/${ours.id}`;
      const asB = [
        await call(h.get, { resource, path, as: b }),
        await call(h.update, {
          method: 'PATCH',
          resource,
          path,
          body: { description: 'x' },
          headers: { 'if-match': '*' },
          as: b,
        }),
        await call(h.remove, { method: 'DELETE', resource, path, headers: { 'if-match': '*' }, as: b }),
        await call(h.rotate, {
          method: 'POST',
          resource: `${resource}/secret/rotate`,
          path: `${path}/secret/rotate`,
          as: b,
        }),
        await call(h.test, { method: 'POST', resource: `${resource}/test`, path: `${path}/test`, as: b }),
        await call(h.recover, {
          method: 'POST',
          resource: `${resource}/recover`,
          path: `${path}/recover`,
          body: { since: '2026-01-01T00:00:00.000Z' },
          as: b,
        }),
        await call(h.deliveries, { resource: `${resource}/deliveries`, path: `${path}/deliveries`, as: b }),
        await detail(delivery?.id as string, b),
        await call(h.redeliver, {
          method: 'POST',
          resource: '/webhook-deliveries/{deliveryId}/redeliver',
          path: `/webhook-deliveries/${delivery?.id}/redeliver`,
          as: b,
        }),
      ];
      expect(asB.map((x) => x.status)).toEqual(asB.map(() => 404));
      const listB = await call(h.list, { resource: '/webhook-endpoints', path: '/webhook-endpoints', as: b });
      expect(listB.body.map((e: { id: string }) => e.id)).toEqual([theirs.id]);
      expect(await deliveryRows(ours.id)).toHaveLength(3);
    });
  });
});
