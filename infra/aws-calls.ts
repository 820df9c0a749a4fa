/**
 * Every AWS call each role of the stacks makes: the functions' own (found in their code by
 * test/infra/iam-calls.test.ts, which fails on a call missing here), CDK's provider functions'
 * and the service roles'. test/infra/iam-simulation.test.ts simulates each against its role in the
 * synthesized templates (identity policies within the permissions boundary) and holds it to a
 * network route; the boundary (infra/account-policies.ts) allows what this table needs beyond
 * the runtime services.
 *
 * To add a call: a row under its caller, naming what the code sends (an SDK command, or the signer
 * of a hand-signed request), the IAM action, the resources as the deployed environment names them
 * (none where the stage never makes the call), and the interface endpoint a function in the VPC
 * reaches it through.
 */
import { routeList } from '#contract/routes.ts';
import { tierNames } from '#contract/tiers.ts';
import { PRE_TRAFFIC_ENTRY } from './constructs/releases.ts';
import { USAGE_PLAN_KEYS_ENTRY } from './constructs/usage-plan-keys.ts';
import { DELIVER_ENTRY, REQUEUE_ENTRY } from './constructs/webhooks.ts';

/** What a row's resources are computed from: the caller as deployed, tokens resolved. */
export interface CallSite {
  /** The function's environment variables. */
  readonly env: Readonly<Record<string, string>>;
  /** The custom resource's properties, for CDK's provider functions. */
  readonly properties: Readonly<Record<string, unknown>>;
  readonly partition: string;
  readonly region: string;
  readonly account: string;
  /** Every resource of a type in the caller's template: its Ref, attributes and properties. */
  resources(type: string): readonly DeployedResource[];
  /** The customer managed key that encrypts a secret; undefined for the AWS-managed key (no IAM grant). */
  keyOfSecret(secretArn: string): string | undefined;
  /** The resource id IAM database authentication checks for a host: its cluster's or its proxy's. */
  databaseResourceId(host: string): string;
  /** The ARNs of the functions built from one of our modules, in the caller's template. */
  functionsOf(entry: string): readonly string[];
}

export interface DeployedResource {
  readonly ref: string;
  attr(name: string): string;
  readonly properties: Readonly<Record<string, unknown>>;
}

export interface AwsCall {
  /** What the code sends (`PutEventsCommand`; `SigV4:rds-db` for a hand-signed request); prose for callers that are not ours. */
  readonly sends: string;
  readonly action: string;
  /** The resources of the call as deployed; empty where this stage's caller never makes it. */
  readonly resources: (site: CallSite) => readonly string[];
  /** Request context IAM sees (e.g. kms:ViaService for a decrypt on Secrets Manager's behalf). */
  readonly context?: (site: CallSite) => Record<string, string>;
  /**
   * The interface endpoint (`com.amazonaws.<region>.<service>`) a caller in the VPC reaches the
   * API through; `database` for an IAM database token, which is signed locally and sent to Postgres.
   */
  readonly route: { endpoint: string } | 'database';
}

/** Who makes calls: one of our modules, CDK's provider of a custom resource type, or a service's role. */
export type Caller =
  | { readonly entry: string }
  | { readonly customResource: string }
  | { readonly servicePrincipal: string };

export interface CallerCalls {
  readonly caller: Caller;
  readonly calls: readonly AwsCall[];
}

const arn = (site: CallSite, service: string, rest: string, region = site.region) =>
  `arn:${site.partition}:${service}:${region}:${site.account}:${rest}`;
const apigateway = (site: CallSite, path: string) =>
  `arn:${site.partition}:apigateway:${site.region}::${path}`;
const when = (value: string | undefined, make: (value: string) => readonly string[]) =>
  value ? make(value) : [];

/** A workspace key the calls name: any id, as API Gateway generates them. */
const SOME_KEY_ID = 'abc123defg';

const databaseToken: AwsCall = {
  sends: 'SigV4:rds-db',
  action: 'rds-db:connect',
  resources: (site) =>
    when(site.env.DATABASE_IAM_USER, (user) => [
      arn(site, 'rds-db', `dbuser:${site.databaseResourceId(site.env.DATABASE_HOST ?? '')}/${user}`),
    ]),
  route: 'database',
};

const masterSecret: readonly AwsCall[] = [
  {
    sends: 'GetSecretValueCommand',
    action: 'secretsmanager:GetSecretValue',
    resources: (site) => when(site.env.DATABASE_SECRET_ARN, (secret) => [secret]),
    route: { endpoint: 'secretsmanager' },
  },
  {
    sends: 'GetSecretValueCommand',
    // Secrets Manager decrypts with the caller's permission when the key is the stage's own.
    action: 'kms:Decrypt',
    resources: (site) =>
      when(site.env.DATABASE_SECRET_ARN, (secret) => when(site.keyOfSecret(secret), (k) => [k])),
    context: (site) => ({ 'kms:ViaService': `secretsmanager.${site.region}.amazonaws.com` }),
    route: { endpoint: 'secretsmanager' },
  },
];

/**
 * A function's database connection (functions/deps.ts), whichever its environment picks: an IAM
 * token as the app role (DATABASE_IAM_USER), or the master secret (DATABASE_SECRET_ARN).
 */
const database: readonly AwsCall[] = [databaseToken, ...masterSecret];

/**
 * The webhook signing secrets' key (functions/webhooks/secrets.ts), where WEBHOOK_SECRETS_ARN is
 * set: the create and rotate routes' and the delivery function's.
 */
const webhookSecretsKey: readonly AwsCall[] = [
  {
    sends: 'GetSecretValueCommand',
    action: 'secretsmanager:GetSecretValue',
    resources: (site) => when(site.env.WEBHOOK_SECRETS_ARN, (secret) => [secret]),
    route: { endpoint: 'secretsmanager' },
  },
  {
    sends: 'GetSecretValueCommand',
    action: 'kms:Decrypt',
    resources: (site) =>
      when(site.env.WEBHOOK_SECRETS_ARN, (secret) => when(site.keyOfSecret(secret), (k) => [k])),
    context: (site) => ({ 'kms:ViaService': `secretsmanager.${site.region}.amazonaws.com` }),
    route: { endpoint: 'secretsmanager' },
  },
];

/** A queue's ARN from its URL (`https://sqs.<region>.amazonaws.com/<account>/<name>`). */
const queueArn = (site: CallSite, url: string) => {
  const [account, name] = new URL(url).pathname.split('/').filter(Boolean);
  return `arn:${site.partition}:sqs:${site.region}:${account}:${name}`;
};

/** functions/webhooks/queue.ts: deliveries onto the queue WEBHOOK_QUEUE_URL. */
const sendToDeliveryQueue: AwsCall = {
  sends: 'SendMessageBatchCommand',
  action: 'sqs:SendMessage',
  resources: (site) => when(site.env.WEBHOOK_QUEUE_URL, (url) => [queueArn(site, url)]),
  route: { endpoint: 'sqs' },
};

/**
 * Lambda's poller for the delivery function's event source mapping, with the function's role: it
 * receives, deletes the processed messages, and hands a failed item back.
 */
const deliveryQueuePoller: readonly AwsCall[] = [
  'ReceiveMessage',
  'DeleteMessage',
  'ChangeMessageVisibility',
  'GetQueueAttributes',
].map((name) => ({
  sends: 'Lambda SQS event source mapping',
  action: `sqs:${name}`,
  resources: (site: CallSite) => when(site.env.WEBHOOK_QUEUE_URL, (url) => [queueArn(site, url)]),
  route: { endpoint: 'sqs' },
}));

/** The API Gateway calls of functions/usage-plan-keys.ts, on the plans USAGE_PLAN_IDS names. */
const usagePlanKeyCalls: readonly AwsCall[] = (() => {
  const plans = (site: CallSite): readonly string[] =>
    when(site.env.USAGE_PLAN_IDS, (json) => tierNames.map((tier) => JSON.parse(json)[tier] as string));
  const gateway = { endpoint: 'apigateway' };
  return [
    {
      sends: 'GetApiKeysCommand',
      action: 'apigateway:GET',
      resources: (site) => (plans(site).length ? [apigateway(site, '/apikeys')] : []),
      route: gateway,
    },
    {
      sends: 'CreateApiKeyCommand',
      action: 'apigateway:POST',
      resources: (site) => (plans(site).length ? [apigateway(site, '/apikeys')] : []),
      route: gateway,
    },
    {
      // removeAll: a preview's teardown deletes the stage's pool (API Gateway drops a key from its plans).
      sends: 'DeleteApiKeyCommand',
      action: 'apigateway:DELETE',
      resources: (site) => (plans(site).length ? [apigateway(site, `/apikeys/${SOME_KEY_ID}`)] : []),
      route: gateway,
    },
    {
      // reconcile: which keys each plan holds, one listing per plan.
      sends: 'GetUsagePlanKeysCommand',
      action: 'apigateway:GET',
      resources: (site) => plans(site).map((plan) => apigateway(site, `/usageplans/${plan}/keys`)),
      route: gateway,
    },
    {
      sends: 'CreateUsagePlanKeyCommand',
      action: 'apigateway:POST',
      resources: (site) => plans(site).map((plan) => apigateway(site, `/usageplans/${plan}/keys`)),
      route: gateway,
    },
  ];
})();

const invokeLambda = (sends: string, target: (site: CallSite) => readonly string[]): AwsCall => ({
  sends,
  action: 'lambda:InvokeFunction',
  resources: target,
  route: { endpoint: 'lambda' },
});

/** A function by name (`Ref`), or qualified by a version or alias, as IAM names it. */
const functionArn = (site: CallSite, name: string) =>
  name.startsWith('arn:') ? name : arn(site, 'lambda', `function:${name}`);
/** Each function a CodeDeploy group releases, at the version being released. */
const releasedVersions = (site: CallSite) =>
  site
    .resources('AWS::Lambda::Alias')
    .map((alias) =>
      functionArn(site, `${alias.properties.FunctionName}:${alias.properties.FunctionVersion}`),
    );

export const AWS_CALLS: readonly CallerCalls[] = [
  ...routeList.map((route) => ({
    caller: { entry: route.entry },
    calls: [...database, ...webhookSecretsKey],
  })),
  ...['functions/authorizer.ts', 'functions/sessions/sweep.ts'].map((entry) => ({
    caller: { entry },
    calls: database,
  })),
  {
    caller: { entry: DELIVER_ENTRY },
    calls: [...database, ...webhookSecretsKey, sendToDeliveryQueue, ...deliveryQueuePoller],
  },
  { caller: { entry: REQUEUE_ENTRY }, calls: [...database, sendToDeliveryQueue] },
  {
    caller: { entry: 'functions/admin.ts' },
    calls: [
      ...database,
      // Deployed, the admin function asks the key function outside the VPC (USAGE_PLAN_KEYS_FUNCTION);
      // with USAGE_PLAN_IDS (locally) it calls API Gateway itself.
      invokeLambda('InvokeCommand', (site) =>
        when(site.env.USAGE_PLAN_KEYS_FUNCTION, (fn) => [functionArn(site, fn)]),
      ),
      ...usagePlanKeyCalls,
    ],
  },
  { caller: { entry: USAGE_PLAN_KEYS_ENTRY }, calls: usagePlanKeyCalls },
  {
    caller: { entry: 'functions/events/relay.ts' },
    calls: [
      ...database,
      {
        sends: 'PutEventsCommand',
        action: 'events:PutEvents',
        resources: (site) =>
          when(site.env.EVENT_BUS_NAME, (bus) => [arn(site, 'events', `event-bus/${bus}`)]),
        route: { endpoint: 'events' },
      },
      sendToDeliveryQueue,
    ],
  },
  {
    caller: { entry: 'functions/migrate.ts' },
    calls: [
      ...database,
      ...(() => {
        const snapshot = (site: CallSite) =>
          when(site.env.SNAPSHOT_PREFIX, (prefix) => [
            arn(site, 'rds', `cluster-snapshot:${prefix}-0001-migration`),
          ]);
        const rds = { endpoint: 'rds' };
        return [
          {
            sends: 'CreateDBClusterSnapshotCommand',
            action: 'rds:CreateDBClusterSnapshot',
            resources: (site: CallSite) =>
              when(site.env.SNAPSHOT_CLUSTER_ID, (cluster) => [
                arn(site, 'rds', `cluster:${cluster}`),
                ...snapshot(site),
              ]),
            route: rds,
          },
          // The snapshot is created with tags: RDS checks AddTagsToResource on it too.
          {
            sends: 'CreateDBClusterSnapshotCommand',
            action: 'rds:AddTagsToResource',
            resources: snapshot,
            route: rds,
          },
          {
            sends: 'DescribeDBClusterSnapshotsCommand',
            action: 'rds:DescribeDBClusterSnapshots',
            resources: snapshot,
            route: rds,
          },
        ] satisfies AwsCall[];
      })(),
    ],
  },
  { caller: { entry: 'functions/preview-database.ts' }, calls: database },
  {
    caller: { entry: PRE_TRAFFIC_ENTRY },
    calls: [
      ...(
        ['ListDeploymentTargets', 'GetDeploymentTarget', 'PutLifecycleEventHookExecutionStatus'] as const
      ).map(
        (name): AwsCall => ({
          sends: `${name}Command`,
          action: `codedeploy:${name}`,
          // The service authorization reference lists no resource type for these: `*` only.
          resources: () => ['*'],
          route: { endpoint: 'codedeploy' },
        }),
      ),
      invokeLambda('InvokeCommand', releasedVersions),
    ],
  },
  // CDK's provider functions: the trigger runs the migration function's current version...
  {
    caller: { customResource: 'Custom::Trigger' },
    calls: [invokeLambda('CDK trigger provider', (site) => [String(site.properties.HandlerArn)])],
  },
  // ...the default security group of a VPC loses its rules...
  {
    caller: { customResource: 'Custom::VpcRestrictDefaultSG' },
    calls: [
      'AuthorizeSecurityGroupIngress',
      'AuthorizeSecurityGroupEgress',
      'RevokeSecurityGroupIngress',
      'RevokeSecurityGroupEgress',
    ].map((name) => ({
      sends: 'CDK restrict-default-security-group provider',
      action: `ec2:${name}`,
      resources: (site: CallSite) => [
        arn(site, 'ec2', `security-group/${site.properties.DefaultSecurityGroupId}`),
      ],
      route: { endpoint: 'ec2' },
    })),
  },
  // ...and the provider framework hands the preview database's events to its handler.
  {
    caller: { customResource: 'Custom::PreviewDatabase' },
    calls: [invokeLambda('CDK provider framework', (site) => [site.env.USER_ON_EVENT_FUNCTION_ARN ?? ''])],
  },
  // CodeDeploy shifts each `live` alias and runs the pre-traffic hook.
  {
    caller: { servicePrincipal: 'codedeploy.amazonaws.com' },
    calls: [
      invokeLambda('CodeDeploy pre-traffic hook', (site) => site.functionsOf(PRE_TRAFFIC_ENTRY)),
      {
        sends: 'CodeDeploy alias shift',
        action: 'lambda:UpdateAlias',
        resources: (site) =>
          site
            .resources('AWS::Lambda::Alias')
            .map((alias) => functionArn(site, `${alias.properties.FunctionName}:${alias.properties.Name}`)),
        route: { endpoint: 'lambda' },
      },
    ],
  },
];

/** A caller's row, by who it is. */
export const callsOf = (caller: Caller): readonly AwsCall[] | undefined =>
  AWS_CALLS.find((row) => JSON.stringify(row.caller) === JSON.stringify(caller))?.calls;

/**
 * What the permissions boundary allows beyond the runtime services: exactly the actions of the
 * table's calls on services the boundary does not otherwise open, on resources of the stacks' kind.
 */
export const BOUNDARY_CALLS: readonly {
  sid: string;
  actions: readonly string[];
  resources: (at: { partition: string; region: string; account: string }) => string[];
}[] = [
  {
    sid: 'WorkspaceUsagePlanKeys',
    actions: ['apigateway:DELETE', 'apigateway:GET', 'apigateway:POST'],
    resources: ({ partition, region }) =>
      ['/apikeys', '/apikeys/*', '/usageplans/*/keys', '/usageplans/*/keys/*'].map(
        (path) => `arn:${partition}:apigateway:${region}::${path}`,
      ),
  },
  {
    sid: 'WebhookDeliveryQueue',
    actions: [
      'sqs:ChangeMessageVisibility',
      'sqs:DeleteMessage',
      'sqs:GetQueueAttributes',
      'sqs:ReceiveMessage',
      'sqs:SendMessage',
    ],
    resources: ({ partition, region, account }) => [`arn:${partition}:sqs:${region}:${account}:*`],
  },
  {
    sid: 'OutboxEvents',
    actions: ['events:PutEvents'],
    resources: ({ partition, region, account }) => [
      `arn:${partition}:events:${region}:${account}:event-bus/*`,
    ],
  },
];
