import { beforeAll, describe, expect, it } from 'vitest';
import { PROXY_MAX_CONNECTIONS_PERCENT } from '#infra/constructs/database.ts';
import { approxMaxConnections } from '#infra/constructs/monitoring.ts';
import {
  DEAD_LETTER_OLDEST_ALARM_SECONDS,
  DELIVER_TIMEOUT,
  DELIVERY_BATCH,
  DELIVERY_CONCURRENCY,
  MAX_RECEIVES,
  QUEUE_OLDEST_ALARM_SECONDS,
} from '#infra/constructs/webhooks.ts';
import { stageConfig } from '#infra/stage.ts';
import { allResourcesOf, logicalId, type Synthesised, synthesise } from './synth.ts';

// biome-ignore lint/suspicious/noExplicitAny: templates are free-form JSON
type Json = any;

const ofType = (resources: Record<string, Json>, type: string) =>
  Object.entries(resources).filter(([, r]) => r.Type === type) as [string, Json][];

describe('webhook delivery on AWS', () => {
  let plain: Record<string, Json>;
  let synth: Synthesised;
  let resources: Record<string, Json>;
  const idOf = (construct: Parameters<typeof logicalId>[1]) => logicalId(synth.stack, construct);
  beforeAll(() => {
    plain = allResourcesOf(synthesise('prod').stack);
    synth = synthesise('prod', { webhooks: true });
    resources = allResourcesOf(synth.stack);
  }, 240_000);

  it('is off by default: no NAT gateway, no public subnet, no queue, and a branch preview cannot turn it on', () => {
    expect(ofType(plain, 'AWS::EC2::NatGateway')).toEqual([]);
    expect(ofType(plain, 'AWS::EC2::InternetGateway')).toEqual([]);
    expect(ofType(plain, 'AWS::SQS::Queue')).toEqual([]);
    expect(stageConfig('prod', { alarmEmail: 'a@example.com' }).webhooks).toBe(false);
    expect(() => stageConfig('pr-7', { webhooks: true })).toThrow(/own network/);
    expect(stageConfig('pr-7', { webhooks: true, proxy: true }).webhooks).toBe(true);
  });

  it('makes one NAT gateway when on, and places only the delivery function behind it', () => {
    expect(ofType(resources, 'AWS::EC2::NatGateway')).toHaveLength(1);
    const webhooks = synth.stack.webhooks;
    if (!webhooks) throw new Error('no webhooks');
    const subnetsOf = (fn: Json) => JSON.stringify(fn.Properties.VpcConfig.SubnetIds);
    const deliver = resources[idOf(webhooks.deliver)];
    expect(subnetsOf(deliver)).toMatch(/egress/i);
    for (const [id, fn] of ofType(resources, 'AWS::Lambda::Function')) {
      if (id === idOf(webhooks.deliver) || !fn.Properties.VpcConfig) continue;
      expect(subnetsOf(fn), id).not.toMatch(/egress|public/i);
    }
    // Its group may send anywhere (the code checks each address); the isolated subnets keep no route out.
    const group = resources[idOf(webhooks.deliver.connections.securityGroups[0] as never)];
    expect(group.Properties.SecurityGroupEgress).toContainEqual(
      expect.objectContaining({ CidrIp: '0.0.0.0/0', IpProtocol: 'tcp', FromPort: 0, ToPort: 65535 }),
    );
  });

  it('queues deliveries encrypted, TLS only, with a dead-letter queue after a few receives', () => {
    const webhooks = synth.stack.webhooks;
    if (!webhooks) throw new Error('no webhooks');
    const queue = resources[idOf(webhooks.queue)];
    const dlq = idOf(webhooks.deadLetters);
    expect(queue.Properties).toMatchObject({
      SqsManagedSseEnabled: true,
      VisibilityTimeout: DELIVER_TIMEOUT.toSeconds() * 6,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [dlq, 'Arn'] }, maxReceiveCount: MAX_RECEIVES },
    });
    expect(resources[dlq].Properties).toMatchObject({
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 14 * 86400,
    });
    const policies = ofType(resources, 'AWS::SQS::QueuePolicy').map(([, p]) => JSON.stringify(p.Properties));
    for (const id of [idOf(webhooks.queue), dlq])
      expect(policies.some((p) => p.includes(id) && p.includes('"aws:SecureTransport":"false"'))).toBe(true);
  });

  it('feeds the delivery function in batches, reporting item failures, at a bounded concurrency', () => {
    const webhooks = synth.stack.webhooks;
    if (!webhooks) throw new Error('no webhooks');
    const mappings = ofType(resources, 'AWS::Lambda::EventSourceMapping');
    expect(mappings).toHaveLength(1);
    expect(mappings[0]?.[1].Properties).toMatchObject({
      FunctionName: { Ref: idOf(webhooks.deliver) },
      EventSourceArn: { 'Fn::GetAtt': [idOf(webhooks.queue), 'Arn'] },
      BatchSize: DELIVERY_BATCH,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: DELIVERY_CONCURRENCY },
    });
    expect(resources[idOf(webhooks.deliver)].Properties.ReservedConcurrentExecutions).toBe(
      DELIVERY_CONCURRENCY,
    );
    // One connection per instance: with the delivery and requeue functions every reservation still
    // fits the proxy's share of the connections and the account's default quota.
    const reserved = ofType(resources, 'AWS::Lambda::Function')
      .map(([, fn]) => fn.Properties.ReservedConcurrentExecutions)
      .filter((n): n is number => typeof n === 'number')
      .reduce((a, b) => a + b, 0);
    const config = stageConfig('prod', { alarmEmail: 'a@example.com' });
    expect(reserved).toBeLessThan(
      Math.floor((approxMaxConnections(config.database.maxCapacity) * PROXY_MAX_CONNECTIONS_PERCENT) / 100),
    );
    expect(reserved).toBeLessThanOrEqual(900);
  });

  it('runs the requeue every minute, and hands the relay, requeue and delivery function the queue', () => {
    const webhooks = synth.stack.webhooks;
    const relay = synth.stack.functions.relay;
    if (!webhooks || !relay) throw new Error('no webhooks');
    expect(resources[idOf(webhooks.requeueRule)].Properties).toMatchObject({
      ScheduleExpression: 'rate(1 minute)',
      State: 'ENABLED',
      Targets: [expect.objectContaining({ Arn: { 'Fn::GetAtt': [idOf(webhooks.requeue), 'Arn'] } })],
    });
    for (const fn of [relay, webhooks.requeue, webhooks.deliver])
      expect(resources[idOf(fn)].Properties.Environment.Variables.WEBHOOK_QUEUE_URL).toEqual({
        Ref: idOf(webhooks.queue),
      });
  });

  it('alarms on the oldest message of the queue and of the dead letters, and on any dead letter', () => {
    const webhooks = synth.stack.webhooks;
    if (!webhooks) throw new Error('no webhooks');
    const alarms = ofType(resources, 'AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
    const on = (queue: string, metric: string) =>
      alarms.find(
        (a) =>
          a.MetricName === metric &&
          a.Namespace === 'AWS/SQS' &&
          JSON.stringify(a.Dimensions).includes(queue),
      );
    const queue = idOf(webhooks.queue);
    const dlq = idOf(webhooks.deadLetters);
    expect(on(queue, 'ApproximateAgeOfOldestMessage')).toMatchObject({
      Threshold: QUEUE_OLDEST_ALARM_SECONDS,
    });
    expect(on(dlq, 'ApproximateAgeOfOldestMessage')).toMatchObject({
      Threshold: DEAD_LETTER_OLDEST_ALARM_SECONDS,
    });
    expect(on(dlq, 'ApproximateNumberOfMessagesVisible')).toMatchObject({
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
    });
    for (const alarm of [
      on(queue, 'ApproximateAgeOfOldestMessage'),
      on(dlq, 'ApproximateNumberOfMessagesVisible'),
    ])
      expect(JSON.stringify(alarm?.AlarmActions)).toContain(idOf(synth.stack.monitoring.topic));
  });

  it("keeps the signing secrets' key in a secret under a rotating KMS key whose policy leaves access to IAM", () => {
    const webhooks = synth.stack.webhooks;
    if (!webhooks) throw new Error('no webhooks');
    const key = resources[idOf(webhooks.key)];
    expect(key.Properties.EnableKeyRotation).toBe(true);
    expect(key.UpdateReplacePolicy).toBe('Retain');
    // The account (IAM decides: the functions' identity policies), and nobody else by name; the
    // second statement is Secrets Manager's use on the account's behalf.
    const statements: Json[] = key.Properties.KeyPolicy.Statement;
    expect(statements.length).toBeGreaterThan(0);
    for (const statement of statements) {
      expect(statement.Effect).toBe('Allow');
      expect(Object.keys(statement.Principal)).toEqual(['AWS']);
      expect(JSON.stringify(statement.Principal)).toMatch(/":iam::",\{"Ref":"AWS::AccountId"\},":root"/);
    }
    expect(statements.filter((st) => st.Condition).map((st) => JSON.stringify(st.Condition))).toEqual([
      expect.stringContaining('secretsmanager.'),
    ]);
    expect(resources[idOf(webhooks.secretsKey)].Properties).toMatchObject({
      KmsKeyId: { 'Fn::GetAtt': [idOf(webhooks.key), 'Arn'] },
      GenerateSecretString: { PasswordLength: 64, ExcludePunctuation: true },
    });
    // Only the functions that seal or open a signing secret are told where it is.
    const told = ofType(resources, 'AWS::Lambda::Function')
      .filter(([, fn]) => fn.Properties.Environment?.Variables?.WEBHOOK_SECRETS_ARN)
      .map(([, fn]) => fn.Metadata?.Entry)
      .sort();
    expect(told).toEqual([
      'functions/webhooks/create.ts',
      'functions/webhooks/deliver.ts',
      'functions/webhooks/rotate.ts',
    ]);
  });
});
