import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { AUTHORIZER_CACHE_TTL_SECONDS, routeList } from '#contract/routes.ts';
import { tierNames, tiers, USAGE_KEY_HEADROOM, USAGE_KEY_PREFIX_ENV } from '#contract/tiers.ts';
import { REQUEST_TIMEOUT_MS } from '#db/client.ts';
import { USAGE_PLAN_IDS_ENV } from '#functions/usage-plan-keys.ts';
import { API_STAGE_NAME } from '#infra/constructs/api.ts';
import {
  APP_USERNAME,
  DATABASE_NAME,
  PROXY_BORROW_TIMEOUT_SECONDS,
  PROXY_MAX_CONNECTIONS_PERCENT,
  RUNTIME_CA_BUNDLE,
} from '#infra/constructs/database.ts';
import { ROUTES_PER_STACK } from '#infra/constructs/functions.ts';
import { approxMaxConnections } from '#infra/constructs/monitoring.ts';
import type { UsagePlanKeysFunction } from '#infra/constructs/usage-plan-keys.ts';
import { gatewayResponses } from '#infra/gateway-responses.ts';
import {
  allResourcesOf,
  countOf,
  logicalId,
  type Resources,
  type Synthesised,
  synthesise,
  templatesOf,
} from './synth.ts';

/** Route functions are in nested stacks of ROUTES_PER_STACK, each with its release (hook, roles). */
const routeStacks = Math.ceil(routeList.length / ROUTES_PER_STACK);
/** Logical ids of every resource of one type, in the stack and its nested stacks. */
const idsOfType = (resources: Resources, type: string) =>
  Object.entries(resources)
    .filter(([, r]) => r.Type === type)
    .map(([id]) => id);

const stages = [
  {
    stage: 'prod',
    retentionDays: 90,
    logPolicy: 'Retain',
    clusterPolicy: 'Snapshot',
    deletionProtection: true,
    proxies: 1,
    minCapacity: 0.5,
    maxCapacity: 8,
    instances: 2,
    counts: {
      // and the RDS API endpoint's (the snapshot before migrations)
      'AWS::EC2::SecurityGroup': 8,
      'AWS::EC2::VPCEndpoint': 4,
      // One per function of ours (the sweep's, the relay's and the key function's included), with the
      // others this stack makes, and each route stack's hook and CodeDeploy roles
      'AWS::IAM::Role': routeList.length + 14 + 2 * routeStacks,
      // Three per function (duration, errors, throttles), and the API's, the database's, the proxy's;
      // two per released function (routes, authorizer) on its new version
      'AWS::CloudWatch::Alarm': routeList.length * 3 + 15 + (routeList.length + 1) * 2,
      // and the web ACL's (aws-waf-logs-*)
      'AWS::Logs::LogGroup': routeList.length + 12 + routeStacks,
      'AWS::ApiGateway::Account': 1, // the account's CloudWatch role (one of the IAM roles) access logs need
      'AWS::WAFv2::WebACL': 1,
      'AWS::WAFv2::WebACLAssociation': 1,
    },
  },
  // The disposable stage with a cluster of its own (branch previews: test/infra/previews.test.ts).
  {
    stage: 'staging',
    retentionDays: 7,
    logPolicy: 'Delete',
    clusterPolicy: 'Delete',
    deletionProtection: false,
    proxies: 1,
    minCapacity: 0.5,
    maxCapacity: 2,
    instances: 1,
    counts: {
      // (the EventBridge and Lambda endpoints' among them)
      'AWS::EC2::SecurityGroup': 7,
      // No API Gateway account role: in the preview account that is the preview base's
      'AWS::IAM::Role': routeList.length + 12 + 2 * routeStacks,
      'AWS::ApiGateway::Account': 0,
      // Three per function (duration, errors, throttles), and the API's, the database's, the proxy's;
      // two per released function on its new version
      'AWS::CloudWatch::Alarm': routeList.length * 3 + 15 + (routeList.length + 1) * 2,
      // a web ACL is a fixed monthly fee: previews have none unless `-c waf=on`
      'AWS::WAFv2::WebACL': 0,
    },
  },
] as const;

describe.each(stages)('the $stage stack', (expected) => {
  let synth: Synthesised;
  let resources: Resources;
  /** The functions this project wrote: one per route, the authorizer, admin, the migration. */
  let appFunctionIds: string[];
  beforeAll(() => {
    synth = synthesise(expected.stage, { alarmEmail: 'ops@example.com' });
    resources = allResourcesOf(synth.stack);
    const { functions, migrations } = synth.stack;
    appFunctionIds = [...functions.all, migrations.function].map((fn) => logicalId(synth.stack, fn));
  });

  it('has the expected resources', () => {
    const counts = {
      // Ours (one per route, the authorizer, admin, the session sweep, the event relay, the migration), the pre-traffic hook (its role and CodeDeploy's are 2 roles more; prod's backup role 1), the trigger's and the default-SG custom resource providers
      'AWS::Lambda::Function': routeList.length + 9 + routeStacks,
      // Routes and authorizer: a version behind a `live` alias, released by its own deployment group
      // (and the migration function's version, which the trigger invokes)
      'AWS::Lambda::Version': routeList.length + 2,
      'AWS::Lambda::Alias': routeList.length + 1,
      'AWS::CodeDeploy::Application': 1 + routeStacks,
      'AWS::CloudFormation::Stack': routeStacks,
      'AWS::CodeDeploy::DeploymentGroup': routeList.length + 1,
      'AWS::ApiGateway::RestApi': 1,
      'AWS::ApiGateway::Method': routeList.length,
      'AWS::ApiGateway::Authorizer': 1,
      'AWS::ApiGateway::Stage': 1,
      'AWS::ApiGateway::GatewayResponse': gatewayResponses.length,
      'AWS::ApiGateway::UsagePlan': tierNames.length,
      'AWS::RDS::DBCluster': 1,
      'AWS::RDS::DBInstance': expected.instances,
      'AWS::RDS::DBProxy': expected.proxies,
      // None: RDS keeps the master's password (and rotates it), the app role has no password.
      'AWS::SecretsManager::Secret': 0,
      'AWS::SecretsManager::RotationSchedule': 0,
      // Secrets Manager's, EventBridge's (the relay's) and Lambda's (the admin function's key calls)
      'AWS::EC2::VPCEndpoint': 3,
      'AWS::EC2::NatGateway': 0,
      'AWS::EC2::InternetGateway': 0,
      'AWS::SNS::Topic': 1,
      'AWS::SNS::Subscription': 1,
      // Our functions (routes + 6, the sweep's, the relay's and the key function's included), the hooks, 2 providers, access logs, flow logs
      'AWS::Logs::LogGroup': routeList.length + 11 + routeStacks,
      'AWS::Events::EventBus': 1,
      'Custom::Trigger': 1,
      ...expected.counts,
    };
    for (const [type, count] of Object.entries(counts)) expect(countOf(synth.stack, type), type).toBe(count);
  });

  it('runs every function on Node.js 22, arm64, ESM, JSON logs, inside the isolated subnets', () => {
    for (const id of appFunctionIds) {
      expect(resources[id]?.Properties).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        LoggingConfig: { LogFormat: 'JSON' },
        VpcConfig: { SubnetIds: expect.any(Array), SecurityGroupIds: expect.any(Array) },
      });
    }
    for (const fn of [
      ...synth.stack.functions.functionByRoute.values(),
      synth.stack.functions.authorizerFunction,
    ]) {
      // Above the database deadline (so the handler answers 503 itself), under API Gateway's 30 s.
      const timeout = resources[logicalId(synth.stack, fn)]?.Properties.Timeout;
      expect(timeout * 1000).toBeGreaterThan(REQUEST_TIMEOUT_MS);
      expect(timeout).toBeLessThanOrEqual(10);
    }
  });

  it('lets each API function connect as the app role by IAM only, and only the migration function read the master secret', () => {
    const { database, functions, migrations } = synth.stack;
    const master = synth.stack.resolve(database.masterSecret.secretArn);
    const tracing = {
      Effect: 'Allow',
      Action: ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'],
      Resource: '*',
    };
    const read = (resource: unknown) => ({
      Effect: 'Allow',
      Action: ['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue'],
      Resource: resource,
    });
    // rds-db:connect on `dbuser:<proxy or cluster resource id>/voice_agent_app`, nothing wider.
    const connectAsApp = {
      Effect: 'Allow',
      Action: 'rds-db:connect',
      Resource: { 'Fn::Join': ['', expect.arrayContaining([`/${APP_USERNAME}`])] },
    };
    const statementsOf = (fn: { role?: { node: { tryFindChild(id: string): unknown } } }) =>
      resources[logicalId(synth.stack, fn.role?.node.tryFindChild('DefaultPolicy') as never)]?.Properties
        .PolicyDocument.Statement;
    for (const fn of functions.all.filter((f) => f !== functions.admin && f !== functions.relay)) {
      expect(statementsOf(fn)).toEqual([tracing, connectAsApp]);
    }
    // The relay also puts events on the stage's bus, and on nothing else.
    expect(statementsOf(functions.relay as never)).toEqual([
      tracing,
      connectAsApp,
      {
        Effect: 'Allow',
        Action: 'events:PutEvents',
        Resource: synth.stack.resolve(synth.stack.eventBus?.eventBusArn),
      },
    ]);
    // The admin function also invokes the key function outside the VPC, and nothing else.
    const keys = synth.stack.node.findChild('UsagePlanKeys') as UsagePlanKeysFunction;
    expect(statementsOf(functions.admin)).toEqual([
      tracing,
      connectAsApp,
      {
        Effect: 'Allow',
        Action: 'lambda:InvokeFunction',
        Resource: { 'Fn::GetAtt': [logicalId(synth.stack, keys.function), 'Arn'] },
      },
    ]);
    // That function keeps the workspaces' API keys in their usage plans (API Gateway only).
    for (const statement of statementsOf(keys.function)) {
      expect([statement.Action].flat().every((a: string) => a.startsWith('apigateway:'))).toBe(true);
    }
    const connectArn = JSON.stringify(statementsOf(functions.authorizerFunction)[1].Resource);
    expect(connectArn).toContain(':dbuser:');
    // On prod also the snapshot before migrations that change tables (test/infra/data-safety.test.ts).
    expect(statementsOf(migrations.function).slice(0, 2)).toEqual([tracing, read(master)]);
    expect(
      statementsOf(migrations.function)
        .slice(2)
        .map((st: { Sid: string }) => st.Sid),
    ).toEqual([
      // The secret is encrypted with the stage's own key, imported: CDK grants nothing on it itself.
      'DecryptTheMasterSecret',
      ...(expected.stage === 'prod' ? ['SnapshotBeforeMigrations', 'TagAndWatchTheSnapshot'] : []),
    ]);
    // Nothing else in the template may read the master secret.
    const readers = Object.entries(resources)
      .filter(
        ([, r]) =>
          r.Type === 'AWS::IAM::Policy' && JSON.stringify(r.Properties).includes(JSON.stringify(master)),
      )
      .map(([id]) => id);
    expect(readers).toEqual([
      logicalId(synth.stack, migrations.function.role?.node.tryFindChild('DefaultPolicy') as never),
    ]);
    // The app role has no password anywhere; the master's is RDS's (below): no secret in the stack.
    expect(idsOfType(resources, 'AWS::SecretsManager::Secret')).toEqual([]);
    synth.template.hasResourceProperties('AWS::RDS::DBCluster', { EnableIAMDatabaseAuthentication: true });
  });

  it('connects the API functions and the authorizer by IAM token as the app role, the migration function with the master secret', () => {
    const { database, functions, migrations } = synth.stack;
    for (const fn of functions.all) {
      const env = resources[logicalId(synth.stack, fn)]?.Properties.Environment.Variables;
      expect(env).toMatchObject({ DATABASE_IAM_USER: APP_USERNAME, DATABASE_NAME: DATABASE_NAME });
      expect(env.DATABASE_SECRET_ARN).toBeUndefined();
    }
    const env = resources[logicalId(synth.stack, migrations.function)]?.Properties.Environment.Variables;
    // The secret RDS keeps holds the user name and password only: the database comes by name.
    expect(env).toMatchObject({
      DATABASE_SECRET_ARN: synth.stack.resolve(database.masterSecret.secretArn),
      DATABASE_NAME: DATABASE_NAME,
      APP_IAM_USER: APP_USERNAME,
    });
    expect(env.DATABASE_IAM_USER).toBeUndefined();
  });

  it('leaves the master password to RDS: created and rotated by RDS in Secrets Manager, no rotation function of its own', () => {
    const { database } = synth.stack;
    const [clusterId] = idsOfType(resources, 'AWS::RDS::DBCluster');
    const cluster = resources[clusterId as string]?.Properties;
    expect(cluster).toMatchObject({ ManageMasterUserPassword: true, MasterUsername: 'postgres' });
    expect(cluster.MasterUserPassword).toBeUndefined();
    expect(synth.stack.resolve(database.masterSecret.secretArn)).toEqual({
      'Fn::GetAtt': [clusterId, 'MasterUserSecret.SecretArn'],
    });
    // No hosted rotation: no transform, no nested stack but the route stacks, no role made outside this template.
    expect(synth.template.toJSON().Transform).toBeUndefined();
    expect(Object.values(resources).filter((r) => /RotationSchedule|Serverless/.test(r.Type))).toEqual([]);
    expect(idsOfType(resources, 'AWS::CloudFormation::Stack').sort()).toEqual(
      synth.stack.functions.routeStacks
        .map((nested) => logicalId(synth.stack, nested.nestedStackResource as never))
        .sort(),
    );
  });

  it('gives every function in every template an explicit log group, providers included', () => {
    for (const template of templatesOf(synth.stack).values()) {
      const own = template.toJSON().Resources as Resources;
      const logGroups = new Set(idsOfType(own, 'AWS::Logs::LogGroup'));
      for (const id of idsOfType(own, 'AWS::Lambda::Function')) {
        const target = own[id]?.Properties.LoggingConfig?.LogGroup?.Ref;
        expect(logGroups.has(target), id).toBe(true);
      }
    }
  });

  it('traces every function and keeps source maps out of the runtime path', () => {
    for (const id of appFunctionIds) {
      const properties = resources[id]?.Properties;
      expect(properties.TracingConfig).toEqual({ Mode: 'Active' });
      expect(JSON.stringify(properties.Environment ?? {})).not.toContain('enable-source-maps');
    }
  });

  it('caps every API function and the authorizer with reserved concurrency within the database connections', () => {
    const { functions, migrations } = synth.stack;
    const reserved = functions.all.map(
      (fn) => resources[logicalId(synth.stack, fn)]?.Properties.ReservedConcurrentExecutions,
    );
    for (const n of reserved) expect(n).toBeGreaterThan(0);
    expect(
      resources[logicalId(synth.stack, migrations.function)]?.Properties.ReservedConcurrentExecutions,
    ).toBe(1);
    // One connection per instance: all of them at once still fit under what the proxy (or the writer) allows.
    const total = reserved.reduce((a: number, b: number) => a + b, 0);
    const maxConnections = approxMaxConnections(expected.maxCapacity);
    expect(total).toBeLessThan(Math.floor((maxConnections * PROXY_MAX_CONNECTIONS_PERCENT) / 100));
    // Every reservation of the stack (the migration's too) fits an account's default quota of 1,000
    // with the 100 that Lambda keeps unreserved.
    const all = Object.values(resources)
      .map((r) => r.Properties?.ReservedConcurrentExecutions)
      .filter((n): n is number => typeof n === 'number');
    expect(all.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(900);
  });

  it('is a REST API, with no HTTP API resource left', () => {
    const v2 = Object.values(resources).filter((r) => r.Type.startsWith('AWS::ApiGatewayV2::'));
    expect(v2).toEqual([]);
    synth.template.hasResourceProperties('AWS::ApiGateway::RestApi', {
      EndpointConfiguration: { Types: ['REGIONAL'] },
      BinaryMediaTypes: ['*/*'],
    });
  });

  it("meters every workspace through its tier's usage plan, the key coming from the authorizer", () => {
    synth.template.hasResourceProperties('AWS::ApiGateway::RestApi', { ApiKeySourceType: 'AUTHORIZER' });
    for (const method of Object.values(resources).filter((r) => r.Type === 'AWS::ApiGateway::Method')) {
      expect(method.Properties).toMatchObject({ AuthorizationType: 'CUSTOM', ApiKeyRequired: true });
    }
    for (const tier of tierNames) {
      synth.template.hasResourceProperties('AWS::ApiGateway::UsagePlan', {
        Throttle: {
          RateLimit: tiers[tier].rate * USAGE_KEY_HEADROOM,
          BurstLimit: tiers[tier].burst * USAGE_KEY_HEADROOM,
        },
        // Each workspace's daily quota is the route functions': a key's quota would count its refusals.
        Quota: Match.absent(),
        ApiStages: [Match.objectLike({ Stage: Match.anyValue() })],
      });
    }
    const keys = synth.stack.node.findChild('UsagePlanKeys') as UsagePlanKeysFunction;
    const keysFn = resources[logicalId(synth.stack, keys.function)];
    expect(Object.keys(keysFn?.Properties.Environment.Variables ?? {})).toContain(USAGE_PLAN_IDS_ENV);
  });

  it("outputs what the preview teardown finds the stage's API keys by: its plans' ids and its key prefix", () => {
    const outputs = synth.template.toJSON().Outputs as Record<string, { Value: unknown }>;
    // cli/aws-stage.ts reads both outputs by these names.
    const planIds = JSON.stringify(outputs.UsagePlanIds?.Value);
    for (const plan of idsOfType(synth.template.toJSON().Resources, 'AWS::ApiGateway::UsagePlan')) {
      expect(planIds).toContain(plan);
    }
    // The prefix the authorizer names each workspace's key with, so the teardown finds exactly those.
    const authorizer = resources[logicalId(synth.stack, synth.stack.functions.authorizerFunction)];
    const prefix = authorizer?.Properties.Environment.Variables[USAGE_KEY_PREFIX_ENV];
    expect(prefix).toBe(synth.stack.stackName);
    synth.template.hasOutput('UsageKeyPrefix', { Value: prefix });
  });

  it('caches the bearer authorizer for the same TTL as the local gateway, keyed by Authorization', () => {
    synth.template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
      Type: 'REQUEST',
      IdentitySource: 'method.request.header.Authorization',
      AuthorizerResultTtlInSeconds: AUTHORIZER_CACHE_TTL_SECONDS,
    });
  });

  it('routes every row of the route table to its own function as a proxy, behind the authorizer', () => {
    const authorizerId = idsOfType(resources, 'AWS::ApiGateway::Authorizer')[0];
    const methods = Object.values(resources).filter((r) => r.Type === 'AWS::ApiGateway::Method');
    expect(methods).toHaveLength(routeList.length);
    // A resource's full path: its PathPart under its parent's (the root's parent is the RestApi).
    const pathOf = (id: string): string => {
      const r = resources[id];
      const parent = r?.Properties.ParentId?.Ref as string | undefined;
      return `${parent ? pathOf(parent) : ''}/${r?.Properties.PathPart}`;
    };
    const templated = routeList.filter((route) => route.path.includes('{'));
    expect(templated.length).toBeGreaterThan(0);
    for (const [route, fn] of synth.stack.functions.byRoute) {
      const resourceId = Object.entries(resources).find(
        ([id, r]) => r.Type === 'AWS::ApiGateway::Resource' && pathOf(id) === route.path,
      )?.[0];
      expect(resourceId, route.path).toBeDefined();
      const method = methods.find(
        (m) => m.Properties.HttpMethod === route.method && m.Properties.ResourceId.Ref === resourceId,
      );
      expect(method?.Properties).toMatchObject({
        AuthorizationType: 'CUSTOM',
        AuthorizerId: { Ref: authorizerId },
        Integration: { Type: 'AWS_PROXY', IntegrationHttpMethod: 'POST' },
      });
      expect(JSON.stringify(method?.Properties.Integration.Uri)).toContain(logicalId(synth.stack, fn));
    }
  });

  it('logs access and throttles on its stage, and outputs its URL', () => {
    synth.template.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: API_STAGE_NAME,
      AccessLogSetting: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('requestId') },
      MethodSettings: Match.arrayWith([
        Match.objectLike({ ThrottlingRateLimit: Match.anyValue(), ThrottlingBurstLimit: Match.anyValue() }),
      ]),
    });
    synth.template.hasOutput('ApiUrl', { Value: Match.anyValue() });
  });

  it.each(gatewayResponses.map((r) => [r.type, r] as const))(
    "answers API Gateway's own %s as a problem with the security headers",
    (type, response) => {
      synth.template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
        ResponseType: type,
        // The two defaults keep API Gateway's own status.
        StatusCode: 'statusCode' in response ? String(response.statusCode) : Match.absent(),
        ResponseParameters: Match.objectLike({
          'gatewayresponse.header.content-type': "'application/problem+json'",
          'gatewayresponse.header.x-content-type-options': "'nosniff'",
          'gatewayresponse.header.cache-control': "'no-store'",
          'gatewayresponse.header.x-request-id': 'context.requestId',
        }),
        ResponseTemplates: {
          'application/json': Match.stringLikeRegexp('"requestId":"\\$context.requestId"'),
        },
      });
    },
  );

  it('keeps every log group for the stage retention, removed with the stack only in previews', () => {
    for (const id of idsOfType(resources, 'AWS::Logs::LogGroup')) {
      expect(resources[id]).toMatchObject({
        Properties: { RetentionInDays: expected.retentionDays },
        DeletionPolicy: expected.logPolicy,
      });
    }
  });

  it('runs an encrypted Aurora PostgreSQL Serverless v2 cluster that requires TLS', () => {
    synth.template.hasResource('AWS::RDS::DBCluster', {
      DeletionPolicy: expected.clusterPolicy,
      Properties: {
        Engine: 'aurora-postgresql',
        EngineVersion: Match.stringLikeRegexp('^1[67]\\.'),
        StorageEncrypted: true,
        DeletionProtection: expected.deletionProtection,
        ServerlessV2ScalingConfiguration: Match.objectLike({ MinCapacity: expected.minCapacity }),
      },
    });
    synth.template.hasResourceProperties('AWS::RDS::DBClusterParameterGroup', {
      Parameters: { 'rds.force_ssl': '1' },
    });
    synth.template.hasResourceProperties('AWS::RDS::DBInstance', { PubliclyAccessible: false });
  });

  it('points the API functions at the proxy in prod, at the TLS-verified writer in previews', () => {
    for (const fn of synth.stack.functions.all) {
      const env = resources[logicalId(synth.stack, fn)]?.Properties.Environment.Variables;
      expect(env).toMatchObject({ DATABASE_IAM_USER: APP_USERNAME, DATABASE_SSLMODE: 'verify-full' });
      if (expected.proxies) {
        expect(env.DATABASE_HOST['Fn::GetAtt'][1]).toBe('Endpoint');
        expect(env.NODE_EXTRA_CA_CERTS).toBeUndefined();
      } else {
        expect(env.DATABASE_HOST['Fn::GetAtt'][1]).toBe('Endpoint.Address');
        expect(env.NODE_EXTRA_CA_CERTS).toBe(RUNTIME_CA_BUNDLE);
      }
    }
    if (expected.proxies) synth.template.hasResourceProperties('AWS::RDS::DBProxy', { RequireTLS: true });
  });

  it('sends every alarm, and its recovery, to the topic (a release’s rollback alarms act through CodeDeploy)', () => {
    const topicId = idsOfType(resources, 'AWS::SNS::Topic')[0];
    const rollback = new Set(
      synth.stack.releases
        .flatMap((releases) => [...releases.alarms.values()].flat())
        .map((alarm) => logicalId(synth.stack, alarm)),
    );
    for (const id of idsOfType(resources, 'AWS::CloudWatch::Alarm').filter((id) => !rollback.has(id))) {
      expect(resources[id]?.Properties).toMatchObject({
        AlarmActions: [{ Ref: topicId }],
        OKActions: [{ Ref: topicId }],
        TreatMissingData: 'notBreaching',
      });
    }
    synth.template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
    });
  });
});

describe('the prod stack only', () => {
  let synth: Synthesised;
  let resources: Resources;
  beforeAll(() => {
    synth = synthesise('prod', { alarmEmail: 'ops@example.com' });
    resources = allResourcesOf(synth.stack);
  });

  it('puts a web application firewall in front of its stage', () => {
    const [acl] = idsOfType(resources, 'AWS::WAFv2::WebACL');
    synth.template.hasResourceProperties('AWS::WAFv2::WebACL', { Scope: 'REGIONAL' });
    synth.template.hasResourceProperties('AWS::WAFv2::WebACLAssociation', {
      WebACLArn: { 'Fn::GetAtt': [acl, 'Arn'] },
    });
  });

  it('refuses to synthesise without an alarm destination', () => {
    expect(() => synthesise('prod', { alarmEmail: undefined })).toThrow(/alarm destination.*alarmEmail/);
  });

  it('runs a Serverless v2 reader in the other AZ, in the promotion tier that scales with the writer', () => {
    const instances = idsOfType(resources, 'AWS::RDS::DBInstance').map((id) => resources[id]?.Properties);
    expect(instances.map((i) => [i.DBInstanceClass, i.PromotionTier, i.AvailabilityZone])).toEqual([
      ['db.serverless', 0, { 'Fn::Select': [0, { 'Fn::GetAZs': '' }] }],
      ['db.serverless', 1, { 'Fn::Select': [1, { 'Fn::GetAZs': '' }] }],
    ]);
  });

  it('pools through a proxy with end-to-end IAM and no secret, with headroom and a borrow timeout under the request deadline', () => {
    synth.template.hasResourceProperties('AWS::RDS::DBProxy', {
      RequireTLS: true,
      DefaultAuthScheme: 'IAM_AUTH',
      Auth: Match.absent(),
    });
    // The proxy's own role may connect to the cluster as the app role, and read no secret.
    const proxy = Object.values(resources).find((r) => r.Type === 'AWS::RDS::DBProxy');
    const roleId = proxy?.Properties.RoleArn['Fn::GetAtt'][0];
    const policies = Object.values(resources).filter(
      (r) =>
        r.Type === 'AWS::IAM::Policy' &&
        JSON.stringify(r.Properties.Roles) === JSON.stringify([{ Ref: roleId }]),
    );
    expect(policies.map((p) => p.Properties.PolicyDocument.Statement)).toEqual([
      [
        {
          Effect: 'Allow',
          Action: 'rds-db:connect',
          Resource: { 'Fn::Join': ['', expect.arrayContaining([`/${APP_USERNAME}`])] },
        },
      ],
    ]);
    synth.template.hasResourceProperties('AWS::RDS::DBProxyTargetGroup', {
      ConnectionPoolConfigurationInfo: {
        MaxConnectionsPercent: PROXY_MAX_CONNECTIONS_PERCENT,
        MaxIdleConnectionsPercent: Match.anyValue(),
        ConnectionBorrowTimeout: PROXY_BORROW_TIMEOUT_SECONDS,
      },
    });
    expect(PROXY_MAX_CONNECTIONS_PERCENT).toBeLessThan(100);
    expect(PROXY_BORROW_TIMEOUT_SECONDS * 1000).toBeLessThan(REQUEST_TIMEOUT_MS);
  });

  it('alarms on max ACU, proxy borrow latency, durations near the timeout, 5xx rate and authorizer denials', () => {
    const alarms = idsOfType(resources, 'AWS::CloudWatch::Alarm').map((id) => resources[id]?.Properties);
    const metricNames = alarms.map((a) => a.MetricName ?? 'expression');
    expect(metricNames).toEqual(
      expect.arrayContaining([
        'ServerlessDatabaseCapacity',
        'DatabaseConnectionsBorrowLatency',
        'Duration',
        'AuthorizerDenies',
        'expression',
      ]),
    );
    const acu = alarms.find((a) => a.MetricName === 'ServerlessDatabaseCapacity');
    expect(acu).toMatchObject({ Threshold: 8, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
    // Lambda's duration of each function, all versions (a release's own alarms watch its version).
    const durations = alarms.filter((a) => a.MetricName === 'Duration' && a.Dimensions.length === 1);
    // Every function behind the API; the admin function, invoked by hand, has none.
    expect(durations).toHaveLength(synth.stack.functions.functionByRoute.size + 1);
    for (const d of durations) {
      const timeoutMs = resources[d.Dimensions[0].Value.Ref]?.Properties.Timeout * 1000;
      expect(d.Threshold).toBe(Math.floor(timeoutMs * 0.8));
    }
    synth.template.hasResourceProperties('AWS::Logs::MetricFilter', {
      FilterPattern: Match.stringLikeRegexp('integrationStatus'),
      MetricTransformations: [Match.objectLike({ MetricName: 'AuthorizerDenies', MetricValue: '1' })],
    });
  });
});

describe("a preview rehearsing prod's database path", () => {
  it.each([
    ['-c proxy=true', 'feature-x', true],
    ['the staging stage', 'staging', undefined],
  ])('with %s has the proxy, and its functions verify the proxy with verify-full', (_, stage, proxy) => {
    const synth = synthesise(stage, { proxy });
    const resources = allResourcesOf(synth.stack);
    synth.template.resourceCountIs('AWS::RDS::DBProxy', 1);
    synth.template.resourceCountIs('AWS::RDS::DBInstance', 1);
    for (const fn of synth.stack.functions.all) {
      const env = resources[logicalId(synth.stack, fn)]?.Properties.Environment.Variables;
      expect(env.DATABASE_HOST['Fn::GetAtt'][1]).toBe('Endpoint');
      expect(env.DATABASE_SSLMODE).toBe('verify-full');
    }
    // Still a disposable preview.
    synth.template.hasResource('AWS::RDS::DBCluster', { DeletionPolicy: 'Delete' });
  });
});
