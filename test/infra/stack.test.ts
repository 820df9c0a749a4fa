import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { AUTHORIZER_CACHE_TTL_SECONDS, routeKey, routeList } from '#contract/routes.ts';
import { REQUEST_TIMEOUT_MS } from '#db/client.ts';
import { RUNTIME_CA_BUNDLE } from '#infra/constructs/database.ts';
import { idsOfType, logicalId, type Resources, resourcesOf, type Synthesised, synthesise } from './synth.ts';

const stages = [
  {
    stage: 'prod',
    retentionDays: 90,
    logPolicy: 'Retain',
    clusterPolicy: 'Snapshot',
    deletionProtection: true,
    proxies: 1,
    minCapacity: 0.5,
    counts: { 'AWS::EC2::SecurityGroup': 5, 'AWS::IAM::Role': 9 },
  },
  {
    stage: 'feature-x',
    retentionDays: 7,
    logPolicy: 'Delete',
    clusterPolicy: 'Delete',
    deletionProtection: false,
    proxies: 0,
    minCapacity: 0,
    counts: { 'AWS::EC2::SecurityGroup': 4, 'AWS::IAM::Role': 8 },
  },
] as const;

describe.each(stages)('the $stage stack', (expected) => {
  let synth: Synthesised;
  let resources: Resources;
  /** The five functions this project wrote: one per route, the authorizer, the migration. */
  let appFunctionIds: string[];
  beforeAll(() => {
    synth = synthesise(expected.stage, { alarmEmail: 'ops@example.com' });
    resources = resourcesOf(synth.template);
    const { functions, migrations } = synth.stack;
    appFunctionIds = [...functions.all, migrations.function].map((fn) => logicalId(synth.stack, fn));
  });

  it('has the expected resources', () => {
    const counts = {
      'AWS::Lambda::Function': 7, // 5 of ours + the trigger's and the default-SG custom resource providers
      'AWS::ApiGatewayV2::Api': 1,
      'AWS::ApiGatewayV2::Route': routeList.length,
      'AWS::ApiGatewayV2::Integration': routeList.length,
      'AWS::ApiGatewayV2::Authorizer': 1,
      'AWS::ApiGatewayV2::Stage': 1,
      'AWS::RDS::DBCluster': 1,
      'AWS::RDS::DBInstance': 1,
      'AWS::RDS::DBProxy': expected.proxies,
      'AWS::SecretsManager::Secret': 1,
      'AWS::EC2::VPCEndpoint': 1,
      'AWS::EC2::NatGateway': 0,
      'AWS::EC2::InternetGateway': 0,
      'AWS::CloudWatch::Alarm': 12,
      'AWS::SNS::Topic': 1,
      'AWS::SNS::Subscription': 1,
      'AWS::Logs::LogGroup': 7,
      'Custom::Trigger': 1,
      ...expected.counts,
    };
    for (const [type, count] of Object.entries(counts)) synth.template.resourceCountIs(type, count);
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
    for (const fn of synth.stack.functions.all) {
      // Above the database deadline (so the handler answers 503 itself), under API Gateway's 30 s.
      const timeout = resources[logicalId(synth.stack, fn)]?.Properties.Timeout;
      expect(timeout * 1000).toBeGreaterThan(REQUEST_TIMEOUT_MS);
      expect(timeout).toBeLessThanOrEqual(10);
    }
  });

  it('lets each function read the database secret and nothing else', () => {
    for (const [, policy] of Object.entries(resources).filter(([id]) =>
      /ServiceRoleDefaultPolicy/.test(id),
    )) {
      expect(policy.Properties.PolicyDocument.Statement).toEqual([
        {
          Effect: 'Allow',
          Action: ['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue'],
          Resource: { Ref: logicalId(synth.stack, synth.stack.database.secret) },
        },
      ]);
    }
  });

  it('caches the bearer authorizer for the same TTL as the local gateway, keyed by Authorization', () => {
    synth.template.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      AuthorizerType: 'REQUEST',
      EnableSimpleResponses: true,
      AuthorizerPayloadFormatVersion: '2.0',
      IdentitySource: ['$request.header.Authorization'],
      AuthorizerResultTtlInSeconds: AUTHORIZER_CACHE_TTL_SECONDS,
    });
  });

  it('routes every row of the route table to its own function, behind the authorizer', () => {
    const authorizerId = idsOfType(synth.template, 'AWS::ApiGatewayV2::Authorizer')[0];
    for (const [route, fn] of synth.stack.functions.byRoute) {
      const [, apiRoute] = Object.entries(resources).find(
        ([, r]) => r.Type === 'AWS::ApiGatewayV2::Route' && r.Properties.RouteKey === routeKey(route),
      ) ?? [undefined, undefined];
      expect(apiRoute?.Properties).toMatchObject({
        AuthorizationType: 'CUSTOM',
        AuthorizerId: { Ref: authorizerId },
      });
      const integrationId = apiRoute?.Properties.Target['Fn::Join'][1][1].Ref;
      expect(resources[integrationId]?.Properties.IntegrationUri).toEqual({
        'Fn::GetAtt': [logicalId(synth.stack, fn), 'Arn'],
      });
    }
  });

  it('logs access and throttles on the $default stage, and outputs its URL', () => {
    synth.template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      AccessLogSettings: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('requestId') },
      DefaultRouteSettings: { ThrottlingRateLimit: Match.anyValue(), ThrottlingBurstLimit: Match.anyValue() },
    });
    synth.template.hasOutput('ApiUrl', { Value: Match.anyValue() });
  });

  it('keeps every log group for the stage retention, removed with the stack only in previews', () => {
    for (const id of idsOfType(synth.template, 'AWS::Logs::LogGroup')) {
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
    synth.template.hasResource('AWS::SecretsManager::Secret', { DeletionPolicy: expected.logPolicy });
  });

  it('points the API functions at the proxy in prod, at the TLS-verified writer in previews', () => {
    for (const fn of synth.stack.functions.all) {
      const env = resources[logicalId(synth.stack, fn)]?.Properties.Environment.Variables;
      expect(env).toMatchObject({ DATABASE_SECRET_ARN: expect.anything(), DATABASE_SSLMODE: 'verify-full' });
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

  it('sends every alarm, and its recovery, to the topic', () => {
    const topicId = idsOfType(synth.template, 'AWS::SNS::Topic')[0];
    for (const id of idsOfType(synth.template, 'AWS::CloudWatch::Alarm')) {
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
