import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeList } from '#contract/routes.ts';
import type { DatabaseHandle } from '#db/client.ts';
import { rowsOf } from '#db/queries/rows.ts';
import { silentLogger } from '#functions/http/log.ts';
import { build as buildCreate } from '#functions/webhooks/create.ts';
import { secretBox } from '#functions/webhooks/secrets.ts';
import { build as buildTest } from '#functions/webhooks/test.ts';
import { BUNDLE_FILE } from '#infra/constructs/lambda.ts';
import { type EventBridgeEndpoint, startEventBridgeEndpoint } from '#local-aws/eventbridge-endpoint.ts';
import { type SqsEndpoint, startSqsEndpoint } from '#local-aws/sqs-endpoint.ts';
import { freshDatabase, usingPostgres } from '#test/helpers/database.ts';
import { apiEvent } from '#test/helpers/events.ts';
import { createTenant, type Tenant } from '#test/helpers/tenants.ts';
import { type Receiver, startReceiver, verified } from '#test/helpers/webhook-receiver.ts';
import { allResourcesOf, logicalId, type Synthesised, synthesise } from './synth.ts';

const run = promisify(execFile);

/**
 * The webhook path as deployed, run from the bundles a real synth builds: the relay's, the delivery
 * function's and the requeue's, each in a Node process of its own over a Postgres database, their
 * SQS and EventBridge calls made by the real SDK to the local stand-ins (AWS_ENDPOINT_URL_*), the
 * delivery verified by the receiver with `standardwebhooks` only.
 */
describe.runIf(usingPostgres())(
  'the webhook bundles, run (skipped on PGlite: the bundles connect to a server)',
  () => {
    let synth: Synthesised;
    let handle: DatabaseHandle & { url?: string };
    let sqs: SqsEndpoint;
    let bridge: EventBridgeEndpoint;
    let receiver: Receiver;
    let tenant: Tenant;
    const key = randomBytes(32);
    const box = secretBox(new Map([['k1', key]]), 'k1');

    beforeAll(async () => {
      const maps = mkdtempSync(join(tmpdir(), 'vaa-sourcemaps-'));
      process.env.SOURCE_MAPS_DIR = maps;
      try {
        const create = routeList.filter((r) => r.entry === 'functions/webhooks/create.ts');
        synth = synthesise('sandbox', { bundle: true, webhooks: true, routes: create });
      } finally {
        delete process.env.SOURCE_MAPS_DIR;
      }
      handle = await freshDatabase();
      sqs = await startSqsEndpoint();
      bridge = await startEventBridgeEndpoint();
      receiver = await startReceiver();
      tenant = await createTenant(handle.db, { name: 'Bundles' });
    }, 300_000);
    afterAll(async () => {
      await receiver?.close();
      await bridge?.close();
      await sqs?.close();
      await handle?.close();
    });

    /**
     * Runs a function's bundle once with `event`, as Lambda would, beside a `node_modules` that
     * stands for the runtime's (it carries the AWS SDK the bundles leave out).
     */
    const invoke = async (fn: LambdaFunction, event: unknown): Promise<unknown> => {
      const assetKey: string = allResourcesOf(synth.stack)[logicalId(synth.stack, fn)]?.Properties.Code.S3Key;
      const runtime = mkdtempSync(join(tmpdir(), 'vaa-runtime-'));
      copyFileSync(
        join(synth.outdir, `asset.${assetKey.replace(/\.zip$/, '')}`, BUNDLE_FILE),
        join(runtime, BUNDLE_FILE),
      );
      symlinkSync(join(process.cwd(), 'node_modules'), join(runtime, 'node_modules'));
      // Lambda freezes the container after the answer; here the open connection would keep Node up.
      const script = `const m = (await import('node:module')).createRequire(import.meta.url)(${JSON.stringify(join(runtime, BUNDLE_FILE))});
console.log(JSON.stringify(await m.handler(${JSON.stringify(event)}, { awsRequestId: 'local' })));
process.exit(0);`;
      const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
        env: {
          PATH: process.env.PATH ?? '',
          DATABASE_URL: handle.url ?? '',
          LOG_LEVEL: 'error',
          AWS_REGION: 'eu-west-1',
          AWS_ACCESS_KEY_ID: 'local',
          AWS_SECRET_ACCESS_KEY: 'local',
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
          AWS_ENDPOINT_URL_SQS: sqs.url,
          AWS_ENDPOINT_URL_EVENTBRIDGE: bridge.url,
          WEBHOOK_QUEUE_URL: sqs.queueUrl,
          EVENT_BUS_NAME: 'voice-agent-admin-bundles',
          WEBHOOK_SECRETS_KEY: key.toString('base64'),
          WEBHOOK_SECRETS_KEY_ID: 'k1',
          WEBHOOK_ALLOW_LOOPBACK: 'true',
        },
        timeout: 60_000,
      });
      const lines = stdout.trim().split('\n');
      return JSON.parse(lines[lines.length - 1] ?? 'null');
    };
    const deliveriesOf = async (endpointId: string) =>
      rowsOf<{ id: string; status: string; kind: string }>(
        await handle.db.execute(
          sql`select id, status, kind from webhook_deliveries where endpoint_id = ${endpointId} order by created_at, id`,
        ),
      );

    it('relay to queue to delivery function to receiver, verified; the requeue finds what no message carries', async () => {
      const { functions, webhooks } = synth.stack;
      if (!functions.relay || !webhooks) throw new Error('the stack has no relay or no webhooks');
      const created = await buildCreate({ database: handle, logger: silentLogger, allowLoopback: true, box })(
        apiEvent({
          method: 'POST',
          resource: '/webhook-endpoints',
          path: '/webhook-endpoints',
          body: { url: receiver.url('bundled'), enabledEvents: ['agent.created'] },
          caller: tenant,
          scopes: 'webhooks:manage',
        }),
      );
      expect(created.statusCode).toBe(201);
      const endpoint = JSON.parse(created.body ?? '{}') as { id: string; secret: string };
      await handle.db.execute(sql`
        insert into events (type, workspace_id, data)
        values ('agent.created', ${tenant.workspaceId}, jsonb_build_object('agentId', 'agent1', 'name', 'Agent',
          'slug', 'agent-1', 'versionId', 'v1'))`);

      // Another database's transaction on the server may hold the newest event back a moment.
      let relayed = { claimed: 0, queued: 0 };
      for (let i = 0; i < 10 && relayed.claimed === 0; i++) {
        if (i > 0) await new Promise((resolve) => setTimeout(resolve, 300));
        relayed = (await invoke(functions.relay, {})) as typeof relayed;
      }
      expect(relayed).toMatchObject({ claimed: 1, queued: 1 });
      expect(bridge.accepted).toHaveLength(1);
      const [delivery] = await deliveriesOf(endpoint.id);
      expect(sqs.messages.map((m) => JSON.parse(m.body))).toEqual([{ deliveryId: delivery?.id }]);

      // What the event source mapping hands the function: the messages, received through the SDK.
      const received = await new SQSClient({
        endpoint: sqs.url,
        region: 'eu-west-1',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      }).send(new ReceiveMessageCommand({ QueueUrl: sqs.queueUrl, MaxNumberOfMessages: 10 }));
      const event = {
        Records: (received.Messages ?? []).map((m) => ({
          messageId: m.MessageId,
          receiptHandle: m.ReceiptHandle,
          body: m.Body,
          attributes: { ApproximateReceiveCount: '1' },
          messageAttributes: {},
          md5OfBody: m.MD5OfBody,
          eventSource: 'aws:sqs',
          eventSourceARN: 'arn:aws:sqs:eu-west-1:000000000000:webhook-deliveries',
          awsRegion: 'eu-west-1',
        })),
      };
      expect(event.Records).toHaveLength(1);
      expect(await invoke(webhooks.deliver, event)).toEqual({ batchItemFailures: [] });
      const got = receiver.at('bundled');
      expect(got).toHaveLength(1);
      expect(verified(endpoint.secret, got[0] as (typeof got)[number])).toMatchObject({
        type: 'agent.created',
        data: { agentId: 'agent1' },
      });
      expect(got[0]?.headers['webhook-id']).toBe(
        rowsOf<{ id: string }>(
          await handle.db.execute(sql`select id from events where workspace_id = ${tenant.workspaceId}`),
        )[0]?.id,
      );
      expect(await deliveriesOf(endpoint.id)).toMatchObject([{ status: 'succeeded' }]);

      // A test delivery a route queued has no message: the requeue sends one.
      sqs.messages.splice(0);
      const test = await buildTest({ database: handle, logger: silentLogger })(
        apiEvent({
          method: 'POST',
          resource: '/webhook-endpoints/{endpointId}/test',
          path: `/webhook-endpoints/${endpoint.id}/test`,
          body: { eventType: 'agent.created' },
          caller: tenant,
          scopes: 'webhooks:manage',
        }),
      );
      const testId = (JSON.parse(test.body ?? '{}') as { id: string }).id;
      expect(await invoke(webhooks.requeue, {})).toEqual({ requeued: 1 });
      expect(sqs.messages.map((m) => JSON.parse(m.body))).toEqual([{ deliveryId: testId }]);
    }, 180_000);
  },
);
