import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, CliCredentialsStackSynthesizer } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { CiIdentityStack, defineCiApp } from '#infra/ci-stack.ts';
import { type Resources, resourcesOf, synthesise } from './synth.ts';

const repository = 'example-org/voice-agent-admin-api';

describe('the deploy identity stack', () => {
  let app: App;
  let stack: CiIdentityStack;
  let resources: Resources;
  beforeAll(() => {
    app = new App();
    stack = defineCiApp(app, { repository });
    resources = resourcesOf(Template.fromStack(stack));
  });
  const roleOf = (role: CiIdentityStack['previewRole']) => {
    const id = stack.getLogicalId(role.node.defaultChild as never);
    return resources[id]?.Properties;
  };
  const statement = (role: CiIdentityStack['previewRole'], sid: string) =>
    roleOf(role).Policies[0].PolicyDocument.Statement.find((s: { Sid: string }) => s.Sid === sid);
  const text = (value: unknown) => JSON.stringify(value);

  it("creates GitHub's OIDC provider for the STS audience", () => {
    const [provider] = Object.values(resources).filter((r) => r.Type === 'AWS::IAM::OIDCProvider');
    expect(provider?.Properties).toMatchObject({
      Url: 'https://token.actions.githubusercontent.com',
      ClientIdList: ['sts.amazonaws.com'],
    });
  });

  it.each([
    ['previewRole', 'preview'],
    ['prodRole', 'production'],
    ['prodPlanRole', 'production-plan'],
  ] as const)('trusts %s only for the repository and the %s environment', (key, environment) => {
    const trust = roleOf(stack[key]).AssumeRolePolicyDocument.Statement;
    expect(trust).toHaveLength(1);
    expect(trust[0]).toMatchObject({
      Action: 'sts:AssumeRoleWithWebIdentity',
      Effect: 'Allow',
      Condition: {
        StringEquals: {
          'token.actions.githubusercontent.com:aud': 'sts.amazonaws.com',
          'token.actions.githubusercontent.com:sub': `repo:${repository}:environment:${environment}`,
        },
      },
    });
  });

  it('lets the prod role touch the prod stack only, and the preview role every stack but prod', () => {
    expect(text(statement(stack.prodRole, 'OwnStacks').Resource)).toContain('stack/VoiceAgentAdmin-prod/*');
    expect(text(statement(stack.prodRole, 'OwnStacks').Resource)).not.toContain('VoiceAgentAdmin-*');
    expect(text(statement(stack.previewRole, 'OwnStacks').Resource)).toContain('stack/VoiceAgentAdmin-*/*');
    const never = statement(stack.previewRole, 'NeverProd');
    expect(never.Effect).toBe('Deny');
    expect(text(never.Resource)).toContain('stack/VoiceAgentAdmin-prod/*');
    expect(statement(stack.previewRole, 'NeverProdTagged')).toMatchObject({
      Effect: 'Deny',
      Action: ['cloudformation:*', 'lambda:*'],
      Resource: '*',
      Condition: { StringEquals: { 'aws:ResourceTag/stage': 'prod' } },
    });
    expect(text(statement(stack.prodRole, 'InvokeAdmin').Resource)).toContain(
      'function:VoiceAgentAdmin-prod-*',
    );
    expect(statement(stack.prodRole, 'NeverProd')).toBeUndefined();
  });

  it('lets the preview role list every stack (npm run stage -- list, the reaper) and protect the preview base', () => {
    expect(statement(stack.previewRole, 'ListStacks')).toMatchObject({
      Effect: 'Allow',
      Resource: '*',
      Action: expect.arrayContaining(['cloudformation:DescribeStacks', 'cloudformation:ListStacks']),
    });
    // The base (VoiceAgentAdmin-previews) is created with termination protection.
    expect(statement(stack.previewRole, 'OwnStacks').Action).toContain(
      'cloudformation:UpdateTerminationProtection',
    );
    for (const role of [stack.prodRole, stack.prodPlanRole]) {
      expect(statement(role, 'ListStacks').Action).not.toContain('cloudformation:DescribeStacks');
    }
  });

  it('lets the prod plan role prepare a change set but not execute it, nor delete the stack', () => {
    const plan = statement(stack.prodPlanRole, 'OwnStacks');
    expect(plan.Action).toContain('cloudformation:CreateChangeSet');
    expect(plan.Action).toContain('cloudformation:DescribeChangeSet');
    for (const action of [
      'ExecuteChangeSet',
      'DeleteStack',
      'SetStackPolicy',
      'UpdateTerminationProtection',
    ]) {
      expect(plan.Action).not.toContain(`cloudformation:${action}`);
      expect(statement(stack.prodRole, 'OwnStacks').Action).toContain(`cloudformation:${action}`);
    }
    expect(statement(stack.prodPlanRole, 'InvokeAdmin')).toBeUndefined();
    expect(text(plan.Resource)).toContain('stack/VoiceAgentAdmin-prod/*');
    expect(text(plan.Resource)).not.toContain('VoiceAgentAdmin-*');
  });

  it('can rely on the stage tag: the API stack carries it as a stack tag, which CloudFormation copies onto nested stacks', {
    timeout: 300_000,
  }, () => {
    const synth = synthesise('prod');
    expect(synth.stack.tags.tagValues()).toMatchObject({ stage: 'prod', project: 'voice-agent-admin-api' });
    const manifest = JSON.parse(readFileSync(join(synth.outdir, 'manifest.json'), 'utf8'));
    expect(manifest.artifacts[synth.stack.artifactId].properties.tags).toMatchObject({ stage: 'prod' });
  });

  it('grants no role assumption, no IAM beyond passing the bootstrap execution role, and no managed policy', () => {
    for (const role of [stack.previewRole, stack.prodRole]) {
      const properties = roleOf(role);
      expect(properties.ManagedPolicyArns).toBeUndefined();
      const statements = properties.Policies[0].PolicyDocument.Statement;
      const actions = statements.flatMap((s: { Action: string | string[] }) => [s.Action].flat());
      expect(actions.filter((a: string) => a.startsWith('sts:'))).toEqual([]);
      expect(actions.filter((a: string) => a.startsWith('iam:'))).toEqual(['iam:PassRole']);
      const pass = statement(role, 'PassExecutionRole');
      expect(text(pass.Resource)).toContain('-cfn-exec-role-');
      expect(pass.Condition).toEqual({
        StringEquals: { 'iam:PassedToService': 'cloudformation.amazonaws.com' },
      });
    }
  });

  it('passes cdk-nag with every acknowledgement explained', () => {
    const report = new AwsSolutionsChecks().validateScope(app);
    expect(report.violations.map((v) => v.ruleName)).toEqual([]);
  });

  it("deploys with the administrator's own credentials, never through the narrowed execution role that would refuse its roles", () => {
    const template = Template.fromStack(stack).toJSON();
    expect(stack.synthesizer).toBeInstanceOf(CliCredentialsStackSynthesizer);
    // No bootstrap version check either: it is deployed before the account is bootstrapped.
    expect(template.Rules).toBeUndefined();
    expect(template.Parameters).toBeUndefined();
  });

  it('lives outside the stack pattern the preview role may deploy', () => {
    expect(stack.stackName).not.toMatch(/^VoiceAgentAdmin-/);
  });

  it('refuses a repository that is not owner/name', () => {
    expect(() => defineCiApp(new App(), { repository: 'just-a-name' })).toThrow(/owner\/name/);
  });

  it('reuses an existing provider instead of creating a second one', () => {
    const reused = new CiIdentityStack(new App(), 'Reuse', {
      repository,
      existingProviderArn: 'arn:aws:iam::123456789012:oidc-provider/token.actions.githubusercontent.com',
    });
    Template.fromStack(reused).resourceCountIs('AWS::IAM::OIDCProvider', 0);
  });
});
