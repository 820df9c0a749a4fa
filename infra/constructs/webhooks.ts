import { Duration, Stack, Validations } from 'aws-cdk-lib';
import { Peer, Port } from 'aws-cdk-lib/aws-ec2';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction as LambdaTarget } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { WEBHOOK_TIMEOUT_MS } from '#contract/limits.ts';
import { KEY_TEXT_LENGTH } from '#functions/webhooks/secrets.ts';
import type { StageConfig } from '../stage.ts';
import type { DatabaseAccess } from './database.ts';
import { serviceFunction } from './lambda.ts';
import type { Network } from './network.ts';

/** The delivery queue's consumer and the scheduled requeue (no routes). */
export const DELIVER_ENTRY = 'functions/webhooks/deliver.ts';
export const REQUEUE_ENTRY = 'functions/webhooks/requeue.ts';
/** A batch's attempts run at once: one send's limit, and room to record them. */
export const DELIVER_TIMEOUT = Duration.millis(WEBHOOK_TIMEOUT_MS + 15_000);
/**
 * Delivery instances at most (reserved concurrency and the event source mapping's maximum): each
 * holds one database connection; the per-endpoint bound is the claim's, across all of them.
 */
export const DELIVERY_CONCURRENCY = 5;
/** Messages a delivery instance takes at once. */
export const DELIVERY_BATCH = 10;
/** Receives before a message goes to the dead-letter queue (its delivery stays in the database). */
export const MAX_RECEIVES = 5;
/** Alarm thresholds: the oldest message waiting, in seconds. A retry may sit delayed up to 900 s. */
export const QUEUE_OLDEST_ALARM_SECONDS = 30 * 60;
export const DEAD_LETTER_OLDEST_ALARM_SECONDS = 24 * 60 * 60;

export interface WebhooksProps {
  readonly config: StageConfig;
  readonly network: Network;
  readonly database: DatabaseAccess;
  /** The outbox relay: it hands its fan-out to the queue. */
  readonly relay: LambdaFunction;
  /** The route functions that seal a new signing secret (create, rotate). */
  readonly sealers: readonly LambdaFunction[];
}

/**
 * Webhook delivery on AWS (`-c webhooks=true`): the relay sends each delivery it fans out to an
 * encrypted SQS queue; the delivery function (in the NAT's private subnets, its only way out)
 * consumes it in batches and reports the messages to come back for; a rule runs the requeue every
 * minute for what no message carries; a dead-letter queue takes a message after MAX_RECEIVES.
 * The signing secrets' key is random text the stack generates into a secret encrypted under a KMS
 * key of its own, read once per container by the functions that seal or open signing secrets.
 */
export class Webhooks extends Construct {
  readonly key: Key;
  readonly secretsKey: Secret;
  readonly queue: Queue;
  readonly deadLetters: Queue;
  readonly deliver: LambdaFunction;
  readonly requeue: LambdaFunction;
  readonly requeueRule: Rule;

  constructor(scope: Construct, id: string, { config, network, database, relay, sealers }: WebhooksProps) {
    super(scope, id);
    const egress = network.egress;
    if (!egress) throw new Error('Webhooks need the network made with config.webhooks (its NAT subnets)');
    this.key = new Key(this, 'SecretsKey', {
      description: `Webhook signing secrets' key text (${config.stage})`,
      enableKeyRotation: true,
      removalPolicy: config.removalPolicy,
    });
    this.secretsKey = new Secret(this, 'SecretsKeyText', {
      description: "The data key endpoints' signing secrets are sealed with (functions/webhooks/secrets.ts)",
      encryptionKey: this.key,
      generateSecretString: {
        passwordLength: KEY_TEXT_LENGTH,
        excludePunctuation: true,
        includeSpace: false,
      },
      removalPolicy: config.removalPolicy,
    });
    Validations.of(this.secretsKey).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Not rotated: every stored signing secret is sealed under it (rotation would need both keys, docs/deploying.md)',
    });
    this.deadLetters = new Queue(this, 'DeadLetters', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    Validations.of(this.deadLetters).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'It is the dead-letter queue of the delivery queue',
    });
    this.queue = new Queue(this, 'Deliveries', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // Six times the function's timeout, as Lambda advises for an SQS event source.
      visibilityTimeout: Duration.seconds(DELIVER_TIMEOUT.toSeconds() * 6),
      retentionPeriod: Duration.days(4),
      deadLetterQueue: { queue: this.deadLetters, maxReceiveCount: MAX_RECEIVES },
    });

    // Out to any receiver: which addresses may be sent to is the code's check (functions/webhooks/send.ts).
    const deliverGroup = network.securityGroup(this, 'DeliverSecurityGroup', 'Webhook delivery function');
    deliverGroup.addEgressRule(Peer.anyIpv4(), Port.allTcp(), 'Webhook receivers, through the NAT gateway');
    this.deliver = serviceFunction(this, 'Deliver', {
      entry: DELIVER_ENTRY,
      description: 'Sends webhook deliveries the queue names, records each attempt (SQS)',
      timeout: DELIVER_TIMEOUT,
      config,
      network,
      securityGroup: deliverGroup,
      reservedConcurrency: DELIVERY_CONCURRENCY,
      subnets: egress,
    });
    database.connect(this.deliver, deliverGroup, 'pooled');
    this.deliver.addEventSource(
      new SqsEventSource(this.queue, {
        batchSize: DELIVERY_BATCH,
        reportBatchItemFailures: true,
        maxConcurrency: DELIVERY_CONCURRENCY,
      }),
    );

    const requeueGroup = network.securityGroup(this, 'RequeueSecurityGroup', 'Webhook requeue function');
    this.requeue = serviceFunction(this, 'Requeue', {
      entry: REQUEUE_ENTRY,
      description: 'Queues the webhook deliveries no message carries (scheduled)',
      timeout: Duration.seconds(30),
      config,
      network,
      securityGroup: requeueGroup,
      reservedConcurrency: 1,
    });
    database.connect(this.requeue, requeueGroup, 'pooled');
    this.requeueRule = new Rule(this, 'RequeueSchedule', {
      description: 'Queues the webhook deliveries coming due that no message carries',
      schedule: Schedule.rate(Duration.minutes(1)),
      targets: [new LambdaTarget(this.requeue, { retryAttempts: 2, maxEventAge: Duration.minutes(2) })],
    });

    for (const fn of [relay, this.deliver, this.requeue]) {
      fn.addEnvironment('WEBHOOK_QUEUE_URL', this.queue.queueUrl);
      this.queue.grantSendMessages(fn);
      network.allowSqsFrom(fn, 'SQS from webhook delivery');
    }
    // Identity policies only (the key's policy leaves IAM to the account): a key policy naming the
    // route functions' roles, in their nested stacks, would make the stacks depend on each other.
    for (const fn of [this.deliver, ...sealers]) {
      fn.addEnvironment('WEBHOOK_SECRETS_ARN', this.secretsKey.secretArn);
      fn.addToRolePolicy(
        new PolicyStatement({
          actions: ['secretsmanager:GetSecretValue'],
          resources: [this.secretsKey.secretArn],
        }),
      );
      fn.addToRolePolicy(
        new PolicyStatement({
          actions: ['kms:Decrypt'],
          resources: [this.key.keyArn],
          conditions: {
            StringEquals: { 'kms:ViaService': `secretsmanager.${Stack.of(this).region}.amazonaws.com` },
          },
        }),
      );
      network.allowSecretsFrom(fn, "Secrets Manager from webhooks' signing secrets");
    }
  }
}
