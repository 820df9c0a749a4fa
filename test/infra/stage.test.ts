import { RemovalPolicy } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { currentGitBranch, resolveStage, sanitiseStage, stageConfig } from '#infra/stage.ts';

describe('stage names', () => {
  it('turns a branch name into a lowercase stack-name fragment', () => {
    expect(sanitiseStage('feature/Add_Sessions')).toBe('feature-add-sessions');
    expect(sanitiseStage('--Fix--  bug--')).toBe('fix-bug');
  });

  it('starts with a letter, as CloudFormation stack names must', () => {
    expect(sanitiseStage('42-answer')).toBe('b-42-answer');
  });

  it('cuts long names and keeps them distinct with a hash of the original', () => {
    const a = sanitiseStage('feature/a-very-long-branch-name-about-sessions');
    const b = sanitiseStage('feature/a-very-long-branch-name-about-agents');
    expect(a).toMatch(/^[a-z][a-z0-9-]{0,23}$/);
    expect(b).toMatch(/^[a-z][a-z0-9-]{0,23}$/);
    expect(a).not.toBe(b);
    expect(sanitiseStage('feature/a-very-long-branch-name-about-sessions')).toBe(a);
  });

  it('rejects a name with nothing usable in it', () => {
    expect(() => sanitiseStage('///')).toThrow(/no letters or digits/);
  });

  it('prefers -c stage, then the branch, then "local"', () => {
    expect(resolveStage('Prod', () => 'main')).toBe('prod');
    expect(resolveStage(undefined, () => 'feature/x')).toBe('feature-x');
    expect(resolveStage(undefined, () => undefined)).toBe('local');
  });

  it('never picks prod from a branch name', () => {
    expect(() => resolveStage(undefined, () => 'prod')).toThrow(/-c stage=prod/);
  });

  it('never picks the preview base from a branch name', () => {
    expect(() => resolveStage(undefined, () => 'Previews')).toThrow(/-c stage=previews/);
    expect(resolveStage('previews', () => 'main')).toBe('previews');
  });

  it('copes without git', () => {
    expect(currentGitBranch('/')).toBeUndefined();
  });
});

describe('stage settings', () => {
  it('keeps prod durable: proxy, deletion protection, 14-day backups, snapshot on removal', () => {
    const prod = stageConfig('prod', { alarmEmail: 'ops@example.com' });
    expect(prod).toMatchObject({
      stackName: 'VoiceAgentAdmin-prod',
      durable: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    expect(prod.database).toMatchObject({
      proxy: true,
      deletionProtection: true,
      removalPolicy: RemovalPolicy.SNAPSHOT,
    });
    expect(prod.database.backupRetention.toDays()).toBeGreaterThanOrEqual(14);
    expect(prod.database.minCapacity).toBeGreaterThan(0);
    expect(prod.database.readers).toBe(1);
  });

  it('refuses prod without an alarm destination', () => {
    expect(() => stageConfig('prod')).toThrow(/alarmEmail/);
  });

  it("gives a preview prod's database path with proxy=true, and the staging stage by default", () => {
    for (const config of [stageConfig('feature-x', { proxy: true }), stageConfig('staging')]) {
      expect(config).toMatchObject({ durable: false, removalPolicy: RemovalPolicy.DESTROY });
      expect(config.database).toMatchObject({
        proxy: true,
        readers: 0,
        minCapacity: 0.5,
      });
      expect(config.database.autoPause).toBeUndefined();
      // Its own cluster, and reserved concurrency bounding the connections to it.
      expect(config.sharedCluster).toBe(false);
      expect(config.functions.routeConcurrency).toBe(5);
    }
  });

  it('makes every other stage a disposable preview that scales to zero', () => {
    const preview = stageConfig('feature-x', { alarmEmail: 'ops@example.com' });
    expect(preview).toMatchObject({
      stackName: 'VoiceAgentAdmin-feature-x',
      durable: false,
      removalPolicy: RemovalPolicy.DESTROY,
      alarmEmail: 'ops@example.com',
    });
    expect(preview.database).toMatchObject({
      minCapacity: 0,
      proxy: false,
      deletionProtection: false,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    expect(preview.database.autoPause?.toSeconds()).toBeGreaterThanOrEqual(300);
    // On the preview base's cluster, reserving nothing from the account's concurrency.
    expect(preview.sharedCluster).toBe(true);
    expect(preview.functions.routeConcurrency).toBeUndefined();
    expect(preview.functions.authorizerConcurrency).toBeUndefined();
    expect(stageConfig('prod', { alarmEmail: 'ops@example.com' }).sharedCluster).toBe(false);
  });
});
