import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RemovalPolicy } from 'aws-cdk-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, resolveStage, stageConfig } from '#infra/stage.ts';
import { idsOfType, resourcesOf, type Synthesised, synthesise } from './synth.ts';

/**
 * The one-account sandbox (docs/deploying.md, first section): `cdk bootstrap` then
 * `cdk deploy -c stage=sandbox`, nothing else in the account. Its template must hold what the
 * docs promise: no second account, no GitHub, no deploy identity, everything deleted with it.
 */
describe('the sandbox stage', () => {
  let synthesised: Synthesised;
  let json: string;
  beforeAll(() => {
    // As `cdk synth -c stage=sandbox` builds it (cdk-nag included), with no alarm address.
    synthesised = synthesise('sandbox', { alarmEmail: undefined });
    json = JSON.stringify(synthesised.template.toJSON());
  });

  it('is chosen by name only, never from a branch', () => {
    expect(resolveStage('sandbox', () => 'main')).toBe('sandbox');
    expect(() => resolveStage(undefined, () => 'Sandbox')).toThrow(/-c stage=sandbox/);
    expect(() => stageConfig('sandbox', { proxy: true })).toThrow(/proxy/);
  });

  it('keeps a network and a small pausing cluster of its own, with no proxy and no preview base', () => {
    const config = stageConfig('sandbox');
    expect(config).toMatchObject({ durable: false, sharedCluster: false, roleBoundary: false });
    expect(config.database).toMatchObject({ proxy: false, readers: 0, minCapacity: 0, maxCapacity: 2 });
    const { template } = synthesised;
    template.resourceCountIs('AWS::EC2::VPC', 1);
    template.resourceCountIs('AWS::RDS::DBCluster', 1);
    template.resourceCountIs('AWS::RDS::DBProxy', 0);
    template.resourceCountIs('AWS::RDS::DBInstance', 1);
    template.hasResourceProperties('AWS::RDS::DBCluster', {
      ServerlessV2ScalingConfiguration: { MinCapacity: 0, MaxCapacity: 2, SecondsUntilAutoPause: 300 },
    });
    // Nothing imported from the preview base's stack.
    expect(json).not.toContain('Fn::ImportValue');
  });

  it('trusts no other account and nothing of GitHub, and needs no deploy identity', () => {
    const { template } = synthesised;
    // (Booleans: a failure should not print the whole template.)
    expect(/token\.actions\.githubusercontent\.com|OIDCProvider|OpenIdConnect/.test(json)).toBe(false);
    expect(idsOfType(template, 'Custom::AWSCDKOpenIdConnectProvider')).toEqual([]);
    // Every account named is this one (AWS::AccountId): no account id written into an ARN.
    expect(json.match(/:(?:iam|kms|backup|events)::?\d{12}:/g)).toBeNull();
    expect(json.includes('PermissionsBoundary')).toBe(false);
    expect(json.includes('VoiceAgentAdmin-role-boundary')).toBe(false);
    for (const [id, resource] of Object.entries(resourcesOf(template))) {
      if (resource.Type !== 'AWS::IAM::Role') continue;
      for (const statement of resource.Properties.AssumeRolePolicyDocument.Statement) {
        expect(Object.keys(statement.Principal), id).toEqual(['Service']);
      }
    }
  });

  it('deletes everything with the stack: no retained resource, no deletion protection, no backup plan', () => {
    const { template, stack } = synthesised;
    expect(stageConfig('sandbox').removalPolicy).toBe(RemovalPolicy.DESTROY);
    expect(stack.terminationProtection).toBe(false);
    for (const [id, resource] of Object.entries(resourcesOf(template))) {
      expect([undefined, 'Delete'], id).toContain(resource.DeletionPolicy);
    }
    template.hasResourceProperties('AWS::RDS::DBCluster', { DeletionProtection: false });
    template.resourceCountIs('AWS::Backup::BackupPlan', 0);
    template.resourceCountIs('AWS::WAFv2::WebACL', 0);
  });
});

describe('docs/deploying.md', () => {
  const text = readFileSync(join(repoRoot, 'docs/deploying.md'), 'utf8');
  const commands = (block: string) =>
    block.split('\n').filter((line) => line.trim() && !line.trim().startsWith('#'));

  it('opens with the sandbox: at most ten commands, bootstrap to teardown, with its monthly cost', () => {
    const first = text.split(/^## /m)[1] ?? '';
    expect(first).toMatch(/^A sandbox in one account/);
    const block = /```sh\n([\s\S]*?)```/.exec(first)?.[1] ?? '';
    const lines = commands(block);
    expect(lines.length).toBeLessThanOrEqual(10);
    expect(lines.some((l) => l.startsWith('npx cdk bootstrap '))).toBe(true);
    expect(lines.some((l) => l.includes('npm run deploy -- -c stage=sandbox'))).toBe(true);
    expect(lines.some((l) => l.includes('npm run smoke -- --stage sandbox'))).toBe(true);
    expect(lines.at(-1)).toContain('npm run destroy -- -c stage=sandbox');
    expect(first).toMatch(/\d+ USD a month/);
  });

  it('gives one bootstrap command per path: the sandbox and production', () => {
    const bootstraps = [...text.matchAll(/^\s*npx cdk bootstrap .*$/gm)].map((m) => m[0].trim());
    expect(bootstraps).toHaveLength(2);
    expect(bootstraps[0]).toBe(
      'npx cdk bootstrap aws://<account-id>/<region>            # once per account and region',
    );
    expect(bootstraps[1]).toMatch(/^npx cdk bootstrap aws:\/\/<account-id>\/<region> \\$/);
  });
});
