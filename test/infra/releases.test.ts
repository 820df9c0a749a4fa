import { Stack } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import type { Alias } from 'aws-cdk-lib/aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { authorizer, routeList } from '#contract/routes.ts';
import { LIVE_ALIAS } from '#infra/constructs/functions.ts';
import { PRE_TRAFFIC_ENTRY } from '#infra/constructs/releases.ts';
import {
  allResourcesOf,
  countOf,
  logicalId,
  type Resources,
  resourcesOf,
  type Synthesised,
  synthesise,
  templateOf,
} from './synth.ts';

describe('releases of the prod stack', () => {
  let synth: Synthesised;
  let resources: Resources;
  beforeAll(() => {
    synth = synthesise('prod');
    resources = allResourcesOf(synth.stack);
  });
  const apiInvoked = () => [
    ...[...synth.stack.functions.byRoute].map(([route, alias]) => [route.name, alias as Alias] as const),
    [authorizer.name, synth.stack.functions.authorizer as Alias] as const,
  ];

  it('puts every route function and the authorizer behind a live alias of a published version', () => {
    expect(apiInvoked()).toHaveLength(routeList.length + 1);
    for (const [name, alias] of apiInvoked()) {
      const props = resources[logicalId(synth.stack, alias)]?.Properties;
      expect(props?.Name, name).toBe(LIVE_ALIAS);
      expect(props?.FunctionVersion['Fn::GetAtt'][1], name).toBe('Version');
      const versionId = props?.FunctionVersion['Fn::GetAtt'][0];
      expect(resources[versionId]?.Type, name).toBe('AWS::Lambda::Version');
      expect(resources[versionId]?.Properties.FunctionName, name).toEqual({
        Ref: logicalId(synth.stack, alias.version.lambda),
      });
    }
  });

  it('has API Gateway invoke the aliases only: integrations, the authorizer and their permissions', () => {
    const aliasIds = new Set(apiInvoked().map(([, alias]) => logicalId(synth.stack, alias)));
    // A REST proxy integration names the function inside its invocation URI (Fn::Join).
    const refsIn = (value: unknown) =>
      [...JSON.stringify(value).matchAll(/"Ref":"([^"]+)"/g)]
        .map((m) => m[1])
        .filter((r) => !r?.startsWith('AWS::'));
    const methods = Object.values(resources).filter((r) => r.Type === 'AWS::ApiGateway::Method');
    expect(methods).toHaveLength(routeList.length);
    for (const method of methods) {
      const targets = refsIn(method.Properties.Integration.Uri);
      expect(targets).toHaveLength(1);
      expect(aliasIds).toContain(targets[0]);
    }
    const auth = Object.values(resources).find((r) => r.Type === 'AWS::ApiGateway::Authorizer');
    expect(JSON.stringify(auth?.Properties.AuthorizerUri)).toContain(
      logicalId(synth.stack, synth.stack.functions.authorizer),
    );
    const gatewayPermissions = Object.values(resources).filter(
      (r) => r.Type === 'AWS::Lambda::Permission' && r.Properties.Principal === 'apigateway.amazonaws.com',
    );
    expect(gatewayPermissions).toHaveLength(routeList.length + 1);
    for (const permission of gatewayPermissions)
      expect(aliasIds).toContain(permission.Properties.FunctionName.Ref);
  });

  it("releases each alias through CodeDeploy (canary), rolled back by one-minute alarms on the new version, all in the alias's template", () => {
    for (const [name, alias] of apiInvoked()) {
      const release = synth.stack.releaseOf(name);
      expect(release, name).toBeDefined();
      const { group, releases } = release as NonNullable<typeof release>;
      const props = resources[logicalId(synth.stack, group)]?.Properties;
      expect(props?.DeploymentConfigName, name).toBe('CodeDeployDefault.LambdaCanary10Percent5Minutes');
      expect(props?.DeploymentStyle).toEqual({
        DeploymentType: 'BLUE_GREEN',
        DeploymentOption: 'WITH_TRAFFIC_CONTROL',
      });
      expect(props?.AutoRollbackConfiguration).toEqual({
        Enabled: true,
        Events: expect.arrayContaining(['DEPLOYMENT_FAILURE', 'DEPLOYMENT_STOP_ON_ALARM']),
      });
      const alarms = releases.alarms.get(name) ?? [];
      expect(alarms.map((a) => a.node.id).sort(), name).toEqual([
        expect.stringMatching(/VersionFailures$/),
        expect.stringMatching(/VersionLatency$/),
      ]);
      // Same template as the alias: the group names its alarms by Ref, the alias names the group.
      expect(props?.AlarmConfiguration).toMatchObject({
        Enabled: true,
        Alarms: alarms.map((a) => ({ Name: { Ref: logicalId(synth.stack, a) } })),
      });
      const aliasResource = resources[logicalId(synth.stack, alias)] as unknown as {
        UpdatePolicy: { CodeDeployLambdaAliasUpdate: unknown };
      };
      expect(aliasResource.UpdatePolicy.CodeDeployLambdaAliasUpdate).toMatchObject({
        ApplicationName: { Ref: logicalId(synth.stack, releases.application) },
        DeploymentGroupName: { Ref: logicalId(synth.stack, group) },
        BeforeAllowTrafficHook: { Ref: logicalId(synth.stack, releases.preTraffic) },
      });
    }
  });

  it('runs a pre-traffic hook outside the VPC, per template, that may only probe the functions it releases and report back', () => {
    expect(synth.stack.releases.length).toBeGreaterThan(1);
    for (const releases of synth.stack.releases) {
      // Each release's own template: the nested stacks' logical ids may repeat the parent's.
      const own = resourcesOf(templateOf(Stack.of(releases)));
      const hookId = logicalId(synth.stack, releases.preTraffic);
      expect(own[hookId]?.Properties.VpcConfig).toBeUndefined();
      expect(own[hookId]?.Properties.Description).toMatch(/pre-traffic/);
      const roleId = own[hookId]?.Properties.Role['Fn::GetAtt'][0];
      const policies = Object.values(own).filter(
        (r) =>
          r.Type === 'AWS::IAM::Policy' && r.Properties.Roles.some((x: { Ref: string }) => x.Ref === roleId),
      );
      const statements = policies.flatMap((p) => p.Properties.PolicyDocument.Statement);
      const actions = new Set(statements.flatMap((s) => [s.Action].flat()));
      expect([...actions].sort()).toEqual([
        'codedeploy:GetDeploymentTarget',
        'codedeploy:ListDeploymentTargets',
        'codedeploy:PutLifecycleEventHookExecutionStatus',
        'lambda:InvokeFunction',
      ]);
      const invokable = JSON.stringify(statements.filter((s) => s.Action === 'lambda:InvokeFunction'));
      for (const alias of releases.groups.keys()) {
        const fn = apiInvoked().find(([name]) => name === alias)?.[1] as Alias;
        expect(invokable).toContain(logicalId(synth.stack, fn.version.lambda));
      }
      expect(invokable).not.toContain(logicalId(synth.stack, synth.stack.functions.admin));
    }
    expect(PRE_TRAFFIC_ENTRY).toBe('functions/pre-traffic.ts');
    synth.template.hasResourceProperties('AWS::Lambda::Function', {
      Handler: 'index.handler',
      Runtime: 'nodejs22.x',
      Description: Match.stringLikeRegexp('pre-traffic'),
    });
  });
});

describe('a branch preview', () => {
  it('has no releases: API Gateway invokes each function itself, CloudFormation updates it in place', () => {
    const synth = synthesise('feature-x');
    const resources = allResourcesOf(synth.stack);
    expect(synth.stack.releases).toEqual([]);
    for (const type of [
      'AWS::CodeDeploy::Application',
      'AWS::CodeDeploy::DeploymentGroup',
      'AWS::Lambda::Alias',
    ])
      expect(countOf(synth.stack, type), type).toBe(0);
    const functionIds = new Set(
      [...synth.stack.functions.functionByRoute.values()].map((fn) => logicalId(synth.stack, fn)),
    );
    for (const method of Object.values(resources).filter((r) => r.Type === 'AWS::ApiGateway::Method')) {
      const [, target] =
        JSON.stringify(method.Properties.Integration.Uri).match(/"Fn::GetAtt":\["([^"]+)"/) ?? [];
      expect(functionIds).toContain(target);
    }
  });
});
