import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type App, CliCredentialsStackSynthesizer, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { Role } from 'aws-cdk-lib/aws-iam';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { CiIdentityStack, defineCiApp } from '#infra/ci-stack.ts';
import { type Resources, resourcesOf, synthesise, testApp } from './synth.ts';

const repository = 'example-org/voice-agent-admin-api';

describe('the deploy identity stack', () => {
  let app: App;
  /** The preview account's stack (the tests that concern one stack only use it). */
  let stack: CiIdentityStack;
  let prodStack: CiIdentityStack;
  let resources: Resources;
  let roles: Record<'previewRole' | 'prodRole' | 'prodPlanRole', Role>;
  beforeAll(() => {
    app = testApp();
    stack = defineCiApp(app, { repository, account: 'preview' });
    prodStack = defineCiApp(testApp(), { repository, account: 'prod' });
    resources = resourcesOf(Template.fromStack(stack));
    roles = {
      previewRole: stack.previewRole as Role,
      prodRole: prodStack.prodRole as Role,
      prodPlanRole: prodStack.prodPlanRole as Role,
    };
  });
  const roleOf = (role: Role) => {
    const owner = Stack.of(role);
    const id = owner.getLogicalId(role.node.defaultChild as never);
    return resourcesOf(Template.fromStack(owner))[id]?.Properties;
  };
  const statement = (role: Role, sid: string) =>
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
    const trust = roleOf(roles[key]).AssumeRolePolicyDocument.Statement;
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
    expect(text(statement(roles.prodRole, 'OwnStacks').Resource)).toContain('stack/VoiceAgentAdmin-prod/*');
    expect(text(statement(roles.prodRole, 'OwnStacks').Resource)).not.toContain('VoiceAgentAdmin-*');
    expect(text(statement(roles.previewRole, 'OwnStacks').Resource)).toContain('stack/VoiceAgentAdmin-*/*');
    const never = statement(roles.previewRole, 'NeverProd');
    expect(never.Effect).toBe('Deny');
    expect(text(never.Resource)).toContain('stack/VoiceAgentAdmin-prod/*');
    expect(statement(roles.previewRole, 'NeverProdTagged')).toMatchObject({
      Effect: 'Deny',
      Action: ['cloudformation:*', 'lambda:*'],
      Resource: '*',
      Condition: { StringEquals: { 'aws:ResourceTag/stage': 'prod' } },
    });
    expect(text(statement(roles.prodRole, 'InvokeAdmin').Resource)).toContain(
      'function:VoiceAgentAdmin-prod-*',
    );
    expect(statement(roles.prodRole, 'NeverProd')).toBeUndefined();
  });

  it('lets the preview role list every stack (npm run stage -- list, the reaper) and protect the preview base', () => {
    expect(statement(roles.previewRole, 'ListStacks')).toMatchObject({
      Effect: 'Allow',
      Resource: '*',
      Action: expect.arrayContaining(['cloudformation:DescribeStacks', 'cloudformation:ListStacks']),
    });
    // The base (VoiceAgentAdmin-previews) is created with termination protection.
    expect(statement(roles.previewRole, 'OwnStacks').Action).toContain(
      'cloudformation:UpdateTerminationProtection',
    );
    for (const role of [roles.prodRole, roles.prodPlanRole]) {
      expect(statement(role, 'ListStacks').Action).not.toContain('cloudformation:DescribeStacks');
    }
  });

  it("lets the preview role find a preview's API keys by plan and by name, and delete them (the teardown)", () => {
    const keys = statement(roles.previewRole, 'PreviewKeys');
    expect(keys).toMatchObject({ Effect: 'Allow', Action: ['apigateway:GET', 'apigateway:DELETE'] });
    // Each resource's path, the partition and region tokens dropped: GetApiKeys reads the collection.
    const paths = keys.Resource.map((r: { 'Fn::Join': [string, unknown[]] }) => r['Fn::Join'][1].at(-1));
    expect(paths).toEqual(['::/usageplans/*/keys', '::/apikeys', '::/apikeys/*']);
    for (const role of [roles.prodRole, roles.prodPlanRole])
      expect(statement(role, 'PreviewKeys')).toBeUndefined();
  });

  it('lets the prod plan role prepare a change set but not execute it, nor delete the stack', () => {
    const plan = statement(roles.prodPlanRole, 'OwnStacks');
    expect(plan.Action).toContain('cloudformation:CreateChangeSet');
    expect(plan.Action).toContain('cloudformation:DescribeChangeSet');
    for (const action of [
      'ExecuteChangeSet',
      'DeleteStack',
      'SetStackPolicy',
      'UpdateTerminationProtection',
    ]) {
      expect(plan.Action).not.toContain(`cloudformation:${action}`);
      expect(statement(roles.prodRole, 'OwnStacks').Action).toContain(`cloudformation:${action}`);
    }
    expect(statement(roles.prodPlanRole, 'InvokeAdmin')).toBeUndefined();
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
    for (const role of [roles.previewRole, roles.prodRole]) {
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

  it('gives each account only its own roles: the prod account none a branch may assume', () => {
    const environments = (owner: CiIdentityStack) =>
      Object.values(resourcesOf(Template.fromStack(owner)))
        .filter((r) => r.Type === 'AWS::IAM::Role')
        .map((r) =>
          r.Properties.AssumeRolePolicyDocument.Statement[0].Condition.StringEquals[
            'token.actions.githubusercontent.com:sub'
          ].replace(/^.*:environment:/, ''),
        )
        .sort();
    expect(environments(stack)).toEqual(['preview']);
    expect(environments(prodStack)).toEqual(['production', 'production-plan']);
    expect(() => defineCiApp(testApp(), { repository, account: 'staging' as never })).toThrow(
      /deployAccount/,
    );
  });

  it('lives outside the stack pattern the preview role may deploy', () => {
    expect(stack.stackName).not.toMatch(/^VoiceAgentAdmin-/);
  });

  it('refuses a repository that is not owner/name', () => {
    expect(() => defineCiApp(testApp(), { repository: 'just-a-name', account: 'preview' })).toThrow(
      /owner\/name/,
    );
  });

  it('reuses an existing provider instead of creating a second one', () => {
    const reused = new CiIdentityStack(testApp(), 'Reuse', {
      repository,
      account: 'prod',
      existingProviderArn: 'arn:aws:iam::123456789012:oidc-provider/token.actions.githubusercontent.com',
    });
    Template.fromStack(reused).resourceCountIs('AWS::IAM::OIDCProvider', 0);
  });
});
