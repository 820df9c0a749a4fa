import { ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '#db/client.ts';
import { rowsOf } from '#db/queries/rows.ts';
import { build as buildRelay } from '#functions/events/relay.ts';
import { silentLogger } from '#functions/http/log.ts';
import { build as buildCreate } from '#functions/webhooks/create.ts';
import { build as buildDeliver } from '#functions/webhooks/deliver.ts';
import { deliveryQueueFromEnv, messageBody } from '#functions/webhooks/queue.ts';
import { build as buildRequeue, REQUEUE_AHEAD_MS, REQUEUE_GRACE_MS } from '#functions/webhooks/requeue.ts';
import { secretBoxFromEnv } from '#functions/webhooks/secrets.ts';
import { defaultResolve } from '#functions/webhooks/send.ts';
import { build as buildTest } from '#functions/webhooks/test.ts';
import { defaultWorkerSettings, type WorkerSettings } from '#functions/webhooks/worker.ts';
import { type SqsEndpoint, startSqsEndpoint } from '#local-aws/sqs-endpoint.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { apiEvent } from '#test/helpers/events.ts';
import { createTenant, type Tenant } from '#test/helpers/tenants.ts';
import { type Receiver, startReceiver, verified } from '#test/helpers/webhook-receiver.ts';

/**
 * The AWS delivery path in process: the relay hands its deliveries to the queue, the delivery
 * function claims what a batch of messages names, the requeue finds what no message carries. The
 * queue is the local SQS stand-in reached through the real SDK; the receiver verifies with
 * `standardwebhooks` only.
 */
describe('webhooks through the delivery queue', () => {
  let handle: DatabaseHandle;
  let receiver: Receiver;
  let sqs: SqsEndpoint;
  let tenant: Tenant;
  const clientConfig = () => ({
    endpoint: sqs.url,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const queue = () => deliveryQueueFromEnv({ WEBHOOK_QUEUE_URL: sqs.queueUrl }, clientConfig());
  const deps = () => ({ database: handle, logger: silentLogger, allowLoopback: true });
  const settings = (more: Partial<WorkerSettings> = {}): WorkerSettings => ({
    ...defaultWorkerSettings({}),
    schedule: [2_000],
    jitter: 0,
    ...more,
    policy: { timeoutMs: 5_000, allowLoopback: true, resolve: defaultResolve },
  });
  const deliver = (more: Partial<WorkerSettings> = {}) =>
    buildDeliver({ ...deps(), box: secretBoxFromEnv({}), settings: settings(more), queue: queue() });

  beforeAll(async () => {
    handle = await freshDatabase({ poolMax: 4 });
    receiver = await startReceiver();
    sqs = await startSqsEndpoint();
    tenant = await createTenant(handle.db, { name: 'Queue' });
  });
  afterAll(async () => {
    await sqs?.close();
    await receiver?.close();
    await handle?.close();
  });

  const createEndpoint = async (url: string, enabledEvents = ['*']) => {
    const result = await buildCreate(deps())(
      apiEvent({
        method: 'POST',
        resource: '/webhook-endpoints',
        path: '/webhook-endpoints',
        body: { url, enabledEvents },
        caller: tenant,
        scopes: 'webhooks:manage',
      }),
    );
    expect(result.statusCode).toBe(201);
    return JSON.parse(result.body ?? '{}') as { id: string; secret: string };
  };
  /** POST /webhook-endpoints/{id}/test of a `balance.low`: a delivery the route queues, no message. */
  const queueTestDelivery = (endpointId: string, idempotencyKey?: string) =>
    buildTest(deps())(
      apiEvent({
        method: 'POST',
        resource: '/webhook-endpoints/{endpointId}/test',
        path: `/webhook-endpoints/${endpointId}/test`,
        body: { eventType: 'balance.low' },
        caller: tenant,
        scopes: 'webhooks:manage',
        headers: idempotencyKey ? { 'idempotency-key': idempotencyKey } : {},
      }),
    );
  const writeEvent = async (type = 'agent.created') =>
    handle.db.execute(sql`
      insert into events (type, workspace_id, data)
      values (${type}, ${tenant.workspaceId}, jsonb_build_object('agentId', 'agent1', 'name', 'Agent',
        'slug', 'agent-1', 'versionId', 'v1'))`);
  const relay = () =>
    buildRelay({
      ...deps(),
      publish: async (envelopes) => envelopes.map(() => true),
      wake: async (ids) => queue()?.send(ids.map((id) => ({ id, delaySeconds: 0 }))),
    })();
  /** What Lambda's event source mapping hands the function: the visible messages, received through the SDK. */
  const receive = async (): Promise<SQSEvent> => {
    const answer = await new SQSClient(clientConfig()).send(
      new ReceiveMessageCommand({ QueueUrl: sqs.queueUrl, MaxNumberOfMessages: 10 }),
    );
    return {
      Records: (answer.Messages ?? []).map((m) => ({
        messageId: m.MessageId ?? '',
        receiptHandle: m.ReceiptHandle ?? '',
        body: m.Body ?? '',
        attributes: {} as SQSEvent['Records'][number]['attributes'],
        messageAttributes: {},
        md5OfBody: m.MD5OfBody ?? '',
        eventSource: 'aws:sqs',
        eventSourceARN: 'arn:aws:sqs:local:000000000000:webhook-deliveries',
        awsRegion: 'local',
      })),
    };
  };
  const record = (messageId: string, body: string): SQSEvent['Records'][number] => ({
    messageId,
    receiptHandle: messageId,
    body,
    attributes: {} as SQSEvent['Records'][number]['attributes'],
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:local:000000000000:webhook-deliveries',
    awsRegion: 'local',
  });
  const deliveryOf = async (endpointId: string) =>
    rowsOf<{ id: string; status: string; attempt_count: number }>(
      await handle.db.execute(
        sql`select id, status, attempt_count from webhook_deliveries where endpoint_id = ${endpointId} order by created_at, id`,
      ),
    );
  const drain = () => sqs.messages.splice(0);

  it('queues what the relay fans out, and the delivery function delivers it, verified', async () => {
    const endpoint = await createEndpoint(receiver.url('queued-ok'));
    receiver.set('queued-ok', (_req, res) => res.writeHead(204).end());
    drain();
    await writeEvent();
    // Another test database's transaction on the same server may hold the newest events back a moment.
    for (let i = 0; i < 500 && sqs.messages.length === 0; i++) {
      await relay();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const [delivery] = await deliveryOf(endpoint.id);
    expect(sqs.messages.map((m) => m.body)).toEqual([messageBody(delivery?.id ?? '')]);

    const event = await receive();
    expect(event.Records).toHaveLength(1);
    expect(await deliver()(event)).toEqual({ batchItemFailures: [] });
    const got = receiver.at('queued-ok');
    expect(got).toHaveLength(1);
    expect(verified(endpoint.secret, got[0] as (typeof got)[number])).toMatchObject({
      type: 'agent.created',
    });
    expect(await deliveryOf(endpoint.id)).toMatchObject([{ status: 'succeeded', attempt_count: 1 }]);

    // The same message again (SQS delivers at least once) finds the delivery done: dropped, not sent.
    expect(await deliver()(event)).toEqual({ batchItemFailures: [] });
    expect(receiver.at('queued-ok')).toHaveLength(1);
  });

  it('queues a retry SQS can hold back, with its wait as the delay', async () => {
    const endpoint = await createEndpoint(receiver.url('fail'), ['balance.low']);
    drain();
    const test = await queueTestDelivery(endpoint.id);
    expect(test.statusCode).toBe(202);
    const [delivery] = await deliveryOf(endpoint.id);
    const answer = await deliver({ schedule: [120_000] })({
      Records: [record('m1', messageBody(delivery?.id ?? ''))],
    });
    expect(answer).toEqual({ batchItemFailures: [] });
    expect(await deliveryOf(endpoint.id)).toMatchObject([{ status: 'failed', attempt_count: 1 }]);
    expect(drain().map((m) => [m.body, m.delaySeconds])).toEqual([[messageBody(delivery?.id ?? ''), 120]]);
    // A wait longer than SQS's 15 minutes is not queued: the requeue carries it when it comes due.
    await handle.db.execute(
      sql`update webhook_deliveries set next_attempt_at = now() where id = ${delivery?.id}`,
    );
    await deliver({ schedule: [3_600_000] })({ Records: [record('m2', messageBody(delivery?.id ?? ''))] });
    expect(drain()).toEqual([]);
  });

  it('hands a message back when its endpoint has its fill in flight, and drops what is not ours', async () => {
    const endpoint = await createEndpoint(receiver.url('queued-slow'), ['balance.low']);
    receiver.set('queued-slow', (_req, res) => {
      setTimeout(() => res.writeHead(200).end('ok'), 100);
    });
    const ids: string[] = [];
    for (const n of [1, 2]) {
      const result = await queueTestDelivery(endpoint.id, `bound-${n}`);
      ids.push((JSON.parse(result.body ?? '{}') as { id: string }).id);
    }
    const answer = await deliver({ perEndpoint: 1 })({
      Records: [
        record('a', messageBody(ids[0] ?? '')),
        record('b', messageBody(ids[1] ?? '')),
        record('c', 'not a delivery'),
        record('d', messageBody('wnosuchdelivery')),
      ],
    });
    expect(receiver.at('queued-slow')).toHaveLength(1);
    expect(receiver.peak('queued-slow')).toBe(1);
    expect(answer.batchItemFailures).toHaveLength(1);
    expect(['a', 'b']).toContain(answer.batchItemFailures[0]?.itemIdentifier);
  });

  it('requeues what no message carries: a test queued by a route, a long retry coming due, a lost message', async () => {
    const endpoint = await createEndpoint(receiver.url('requeued'), ['balance.low']);
    drain();
    const result = await queueTestDelivery(endpoint.id);
    const testId = (JSON.parse(result.body ?? '{}') as { id: string }).id;
    const requeue = buildRequeue({ ...deps(), queue: queue() as NonNullable<ReturnType<typeof queue>> });
    const sentIds = () => drain().map((m) => (JSON.parse(m.body) as { deliveryId: string }).deliveryId);
    await requeue();
    expect(sentIds()).toContain(testId);

    // Attempted once and failed with an hour's wait: nothing until it comes due within the period.
    await handle.db.execute(sql`update webhook_deliveries set attempt_count = 1, status = 'failed',
      updated_at = now() - interval '1 hour' + interval '30 seconds', next_attempt_at = now() + interval '30 seconds'
      where id = ${testId}`);
    await requeue();
    const queuedLong = drain().filter((m) => m.body === messageBody(testId));
    expect(queuedLong).toHaveLength(1);
    expect(queuedLong[0]?.delaySeconds).toBeGreaterThan(20);
    expect(queuedLong[0]?.delaySeconds).toBeLessThanOrEqual(REQUEUE_AHEAD_MS / 1000);

    // A short retry (its message is SQS's to hold) is left alone until it is overdue past the grace.
    await handle.db.execute(sql`update webhook_deliveries set updated_at = now() - interval '5 seconds',
      next_attempt_at = now() where id = ${testId}`);
    await requeue();
    expect(sentIds()).not.toContain(testId);
    await handle.db.execute(sql`update webhook_deliveries
      set next_attempt_at = now() - ${REQUEUE_GRACE_MS + 1000} * interval '1 millisecond',
        updated_at = now() - ${REQUEUE_GRACE_MS + 6000} * interval '1 millisecond'
      where id = ${testId}`);
    await requeue();
    expect(sentIds()).toContain(testId);
  });
});
