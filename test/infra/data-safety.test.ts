import { beforeAll, describe, expect, it } from 'vitest';
import { SNAPSHOT_CLUSTER_ENV, SNAPSHOT_PREFIX_ENV } from '#functions/cluster-snapshot.ts';
import { PROTECTED_VAULT_ACTIONS } from '#infra/constructs/data-safety.ts';
import { stageConfig } from '#infra/stage.ts';
import {
  idsOfType,
  logicalId,
  type Resources,
  resourcesOf,
  type Synthesised,
  synthesise,
  synthesiseBase,
} from './synth.ts';

// Stacks with a cluster of their own; a branch preview's database is on the preview base (below).
describe.each(['prod', 'staging'])('data safety of the %s stack', (stage) => {
  let synth: Synthesised;
  let resources: Resources;
  beforeAll(() => {
    synth = synthesise(stage);
    resources = resourcesOf(synth.template);
  });
  const dataKey = () => {
    if (!synth.stack.dataKey) throw new Error(`${stage} has no data key`);
    return synth.stack.dataKey.key;
  };
  const keyRef = () => ({ 'Fn::GetAtt': [logicalId(synth.stack, dataKey()), 'Arn'] });

  it('encrypts the cluster and the master secret with its own rotating KMS key', () => {
    const keyId = logicalId(synth.stack, dataKey());
    expect(resources[keyId]?.Properties.EnableKeyRotation).toBe(true);
    const [cluster] = idsOfType(synth.template, 'AWS::RDS::DBCluster');
    expect(resources[cluster as string]?.Properties).toMatchObject({
      StorageEncrypted: true,
      KmsKeyId: keyRef(),
    });
    // The master secret RDS keeps for the cluster is encrypted with it too (the app role signs in
    // with IAM tokens: no other secret exists).
    expect(resources[cluster as string]?.Properties.MasterUserSecret).toEqual({ KmsKeyId: keyRef() });
    expect(idsOfType(synth.template, 'AWS::SecretsManager::Secret')).toEqual([]);
    // Grants live in the roles' policies: the key policy names no role of this stack.
    expect(JSON.stringify(resources[keyId]?.Properties.KeyPolicy)).not.toMatch(/ServiceRole/);
  });

  /** The statements of the migration function's own policy, and its environment. */
  const migrationFunction = () => {
    const fnId = logicalId(synth.stack, synth.stack.migrations.function);
    const fn = resources[fnId];
    const roleId = fn?.Properties.Role['Fn::GetAtt'][0];
    const statements = Object.values(resources)
      .filter((r) => r.Type === 'AWS::IAM::Policy' && JSON.stringify(r.Properties.Roles).includes(roleId))
      .flatMap((r) => r.Properties.PolicyDocument.Statement);
    return { env: fn?.Properties.Environment.Variables, statements };
  };
  const rdsEndpoints = () =>
    Object.values(resources).filter(
      (r) => r.Type === 'AWS::EC2::VPCEndpoint' && JSON.stringify(r.Properties.ServiceName).includes('.rds"'),
    );

  if (stage === 'prod') {
    it('lets the migration function snapshot its cluster, and only that, before migrations that change tables', () => {
      const [cluster] = idsOfType(synth.template, 'AWS::RDS::DBCluster');
      const { env, statements } = migrationFunction();
      expect(env).toMatchObject({
        [SNAPSHOT_CLUSTER_ENV]: { Ref: cluster },
        [SNAPSHOT_PREFIX_ENV]: 'voiceagentadmin-prod',
      });
      const arn = (rest: unknown[]) => ({
        'Fn::Join': [
          '',
          [
            'arn:',
            { Ref: 'AWS::Partition' },
            ':rds:',
            { Ref: 'AWS::Region' },
            ':',
            { Ref: 'AWS::AccountId' },
            ...rest,
          ],
        ],
      });
      const snapshots = arn([':cluster-snapshot:voiceagentadmin-prod-*']);
      expect(statements).toContainEqual({
        Sid: 'SnapshotBeforeMigrations',
        Effect: 'Allow',
        Action: 'rds:CreateDBClusterSnapshot',
        Resource: [snapshots, arn([':cluster:', { Ref: cluster }])],
      });
      expect(statements).toContainEqual({
        Sid: 'TagAndWatchTheSnapshot',
        Effect: 'Allow',
        Action: ['rds:AddTagsToResource', 'rds:DescribeDBClusterSnapshots'],
        Resource: snapshots,
      });
      // Nothing else of RDS: no deleting, copying or sharing snapshots.
      const rdsActions = statements.flatMap((st: { Action: string | string[] }) => [st.Action].flat());
      expect(rdsActions.filter((a: string) => a.startsWith('rds:')).sort()).toEqual([
        'rds:AddTagsToResource',
        'rds:CreateDBClusterSnapshot',
        'rds:DescribeDBClusterSnapshots',
      ]);
      // The isolated subnets reach the RDS API through an endpoint, opened to the migration function alone.
      const [endpoint] = rdsEndpoints();
      expect(endpoint?.Properties).toMatchObject({ PrivateDnsEnabled: true, VpcEndpointType: 'Interface' });
      const endpointGroup = endpoint?.Properties.SecurityGroupIds[0]['Fn::GetAtt'][0];
      const ingress = Object.values(resources).filter(
        (r) =>
          r.Type === 'AWS::EC2::SecurityGroupIngress' &&
          r.Properties.GroupId['Fn::GetAtt']?.[0] === endpointGroup,
      );
      expect(ingress.map((r) => r.Properties.SourceSecurityGroupId['Fn::GetAtt'][0])).toEqual([
        logicalId(synth.stack, synth.stack.migrations.function.connections.securityGroups[0] as never),
      ]);
    });

    it('backs the cluster up daily and continuously for 35 days, copied to a locked vault nobody may empty', () => {
      const [planId] = idsOfType(synth.template, 'AWS::Backup::BackupPlan');
      const [rule] = resources[planId as string]?.Properties.BackupPlan.BackupPlanRule ?? [];
      expect(rule).toMatchObject({
        ScheduleExpression: 'cron(0 2 * * ? *)',
        EnableContinuousBackup: true,
        Lifecycle: { DeleteAfterDays: 35 },
      });
      const copyId = logicalId(synth.stack, synth.stack.backups?.copyVault as never);
      expect(rule.CopyActions).toEqual([
        {
          DestinationBackupVaultArn: { 'Fn::GetAtt': [copyId, 'BackupVaultArn'] },
          Lifecycle: { DeleteAfterDays: 35 },
        },
      ]);
      const copy = synth.template.toJSON().Resources[copyId];
      expect(copy.DeletionPolicy).toBe('Retain');
      expect(copy.Properties.LockConfiguration).toEqual({ MinRetentionDays: 35 });
      expect(copy.Properties.AccessPolicy.Statement).toContainEqual({
        Sid: 'NobodyDeletesCopies',
        Effect: 'Deny',
        Principal: { AWS: '*' },
        Action: PROTECTED_VAULT_ACTIONS,
        Resource: '*',
      });
      expect(PROTECTED_VAULT_ACTIONS).toEqual(
        expect.arrayContaining(['backup:DeleteRecoveryPoint', 'backup:DeleteBackupVault']),
      );
      const [selection] = idsOfType(synth.template, 'AWS::Backup::BackupSelection');
      expect(JSON.stringify(resources[selection as string]?.Properties.BackupSelection.Resources)).toContain(
        idsOfType(synth.template, 'AWS::RDS::DBCluster')[0],
      );
    });
  } else {
    it('takes no AWS Backup of a disposable preview, and no snapshot before its migrations', () => {
      synth.template.resourceCountIs('AWS::Backup::BackupPlan', 0);
      const { env, statements } = migrationFunction();
      expect(env[SNAPSHOT_CLUSTER_ENV]).toBeUndefined();
      expect(JSON.stringify(statements)).not.toContain('rds:');
      expect(rdsEndpoints()).toEqual([]);
    });
  }
});

describe('data safety of a branch preview and of the preview base', () => {
  it('gives neither a KMS key nor a backup plan: their data is disposable (docs/decisions.md)', () => {
    const branch = synthesise('feature-x');
    expect(branch.stack.dataKey).toBeUndefined();
    for (const template of [branch.template, synthesiseBase().template]) {
      template.resourceCountIs('AWS::KMS::Key', 0);
      template.resourceCountIs('AWS::Backup::BackupPlan', 0);
    }
  });
});

describe('prod with its backups copied to a backup account (-c backupCopyVaultArn=…)', () => {
  const copyVaultArn = 'arn:aws:backup:eu-west-1:210987654321:backup-vault:voice-agent-admin-prod-copies';
  let synth: Synthesised;
  let resources: Resources;
  beforeAll(() => {
    synth = synthesise('prod', { backupCopyVaultArn: copyVaultArn });
    resources = resourcesOf(synth.template);
  });

  it('copies each daily recovery point to that vault, with the same retention, instead of a vault of its own', () => {
    const [planId] = idsOfType(synth.template, 'AWS::Backup::BackupPlan');
    const [rule] = resources[planId as string]?.Properties.BackupPlan.BackupPlanRule ?? [];
    expect(rule.CopyActions).toEqual([
      { DestinationBackupVaultArn: copyVaultArn, Lifecycle: { DeleteAfterDays: 35 } },
    ]);
    // The stage's own vault only: the locked copy vault is the backup account's now.
    synth.template.resourceCountIs('AWS::Backup::BackupVault', 1);
    expect(JSON.stringify(resources)).not.toContain('protected-copies');
  });

  it('lets the backup account decrypt and re-encrypt with the data key (for the copy), nothing else', () => {
    const keyId = logicalId(synth.stack, synth.stack.dataKey?.key as never);
    const statements = resources[keyId]?.Properties.KeyPolicy.Statement;
    const backupAccount = {
      AWS: { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::210987654321:root']] },
    };
    expect(statements).toContainEqual({
      Sid: 'BackupAccountCopies',
      Effect: 'Allow',
      Principal: backupAccount,
      Action: ['kms:Decrypt', 'kms:DescribeKey', 'kms:ReEncryptFrom'],
      Resource: '*',
    });
    expect(statements).toContainEqual({
      Sid: 'BackupAccountCopyGrants',
      Effect: 'Allow',
      Principal: backupAccount,
      Action: 'kms:CreateGrant',
      Resource: '*',
      Condition: { Bool: { 'kms:GrantIsForAWSResource': true } },
    });
    const granted = statements.filter((s: { Principal: unknown }) =>
      JSON.stringify(s.Principal).includes('210987654321'),
    );
    expect(granted).toHaveLength(2);
    // Without the option the key is shared with no other account.
    const plain = resourcesOf(synthesise('prod').template);
    const plainKey = Object.values(plain).find((r) => r.Type === 'AWS::KMS::Key');
    expect(JSON.stringify(plainKey?.Properties.KeyPolicy)).not.toContain('BackupAccount');
  });

  it('refuses a malformed ARN, and the option on a stage without backups', () => {
    expect(() =>
      stageConfig('prod', { alarmEmail: 'ops@example.com', backupCopyVaultArn: 'vault-name' }),
    ).toThrow(/backupCopyVaultArn must be a backup vault ARN/);
    expect(() => stageConfig('staging', { backupCopyVaultArn: copyVaultArn })).toThrow(
      /applies to prod only/,
    );
  });
});
