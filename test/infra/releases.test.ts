import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { authorizer, routeList } from '#contract/routes.ts';
import { LIVE_ALIAS } from '#infra/constructs/functions.ts';
import { PRE_TRAFFIC_ENTRY } from '#infra/constructs/releases.ts';
import { idsOfType, logicalId, type Resources, resourcesOf, type Synthesised, synthesise } from './synth.ts';

describe.each([
  { stage: 'prod', config: 'CodeDeployDefault.LambdaCanary10Percent5Minutes' },
  { stage: 'feature-x', config: 'CodeDeployDefault.LambdaAllAtOnce' },
])('releases of the $stage stack', ({ stage, config }) => {
  let synth: Synthesised;
  let resources: Resources;
  beforeAll(() => {
    synth = synthesise(stage);
    resources = resourcesOf(synth.template);
  });
  const apiInvoked = () => [
    ...[...synth.stack.functions.byRoute].map(([route, alias]) => [route.name, alias] as const),
    [authorizer.name, synth.stack.functions.authorizer] as const,
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
    const methods = idsOfType(synth.template, 'AWS::ApiGateway::Method');
    expect(methods.length).toBeGreaterThan(0);
    for (const id of methods) {
      const targets = refsIn(resources[id]?.Properties.Integration.Uri);
      expect(targets).toHaveLength(1);
      expect(aliasIds).toContain(targets[0]);
    }
    const [auth] = idsOfType(synth.template, 'AWS::ApiGateway::Authorizer');
    expect(JSON.stringify(resources[auth as string]?.Properties.AuthorizerUri)).toContain(
      logicalId(synth.stack, synth.stack.functions.authorizer),
    );
    const gatewayPermissions = Object.values(resources).filter(
      (r) => r.Type === 'AWS::Lambda::Permission' && r.Properties.Principal === 'apigateway.amazonaws.com',
    );
    expect(gatewayPermissions.length).toBeGreaterThan(0);
    for (const permission of gatewayPermissions)
      expect(aliasIds).toContain(permission.Properties.FunctionName.Ref);
  });

  it(`releases each alias through CodeDeploy (${config}), rolled back by one-minute alarms on the new version`, () => {
    for (const [name, alias] of apiInvoked()) {
      const group = synth.stack.releases.groups.get(name);
      expect(group, name).toBeDefined();
      const props = resources[logicalId(synth.stack, group as never)]?.Properties;
      expect(props?.DeploymentConfigName, name).toBe(config);
      expect(props?.DeploymentStyle).toEqual({
        DeploymentType: 'BLUE_GREEN',
        DeploymentOption: 'WITH_TRAFFIC_CONTROL',
      });
      expect(props?.AutoRollbackConfiguration).toEqual({
        Enabled: true,
        Events: expect.arrayContaining(['DEPLOYMENT_FAILURE', 'DEPLOYMENT_STOP_ON_ALARM']),
      });
      const alarms = synth.stack.releases.alarms.get(name) ?? [];
      expect(alarms.map((a) => a.node.id).sort(), name).toEqual([
        expect.stringMatching(/VersionFailures$/),
        expect.stringMatching(/VersionLatency$/),
      ]);
      expect(props?.AlarmConfiguration).toMatchObject({
        Enabled: true,
        Alarms: alarms.map((a) => ({ Name: { Ref: logicalId(synth.stack, a) } })),
      });
      // CloudFormation hands the alias to CodeDeploy instead of moving it itself.
      const aliasResource = synth.template.toJSON().Resources[logicalId(synth.stack, alias)];
      expect(aliasResource.UpdatePolicy.CodeDeployLambdaAliasUpdate).toMatchObject({
        ApplicationName: { Ref: logicalId(synth.stack, synth.stack.releases.application) },
        DeploymentGroupName: { Ref: logicalId(synth.stack, group as never) },
        BeforeAllowTrafficHook: { Ref: logicalId(synth.stack, synth.stack.releases.preTraffic) },
      });
    }
  });

  it('runs a pre-traffic hook outside the VPC that may only probe the released functions and report back', () => {
    const hookId = logicalId(synth.stack, synth.stack.releases.preTraffic);
    expect(resources[hookId]?.Properties.VpcConfig).toBeUndefined();
    expect(resources[hookId]?.Properties.Description).toMatch(/pre-traffic/);
    expect(PRE_TRAFFIC_ENTRY).toBe('functions/pre-traffic.ts');
    const roleId = resources[hookId]?.Properties.Role['Fn::GetAtt'][0];
    const policies = Object.values(resources).filter(
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
    for (const [, alias] of apiInvoked())
      expect(invokable).toContain(logicalId(synth.stack, alias.version.lambda));
    expect(invokable).not.toContain(logicalId(synth.stack, synth.stack.functions.admin));
    synth.template.hasResourceProperties('AWS::Lambda::Function', {
      Handler: 'index.handler',
      Runtime: 'nodejs22.x',
      Description: Match.stringLikeRegexp('pre-traffic'),
    });
  });
});
