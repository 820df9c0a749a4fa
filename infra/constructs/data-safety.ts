import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import {
  BackupPlan,
  BackupPlanRule,
  BackupResource,
  BackupVault,
  type IBackupVault,
} from 'aws-cdk-lib/aws-backup';
import { Schedule } from 'aws-cdk-lib/aws-events';
import { AccountPrincipal, AnyPrincipal, Effect, PolicyDocument, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { type IKey, Key } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { accountOfVault, type StageConfig } from '../stage.ts';
import type { Database } from './database.ts';

/**
 * The stage's own KMS key (yearly rotation) for the cluster's storage, its snapshots and the
 * database secrets: unlike the AWS-managed `aws/rds` key, its policy can later allow a backup
 * account to copy the snapshots, and deleting it is a deliberate, delayed act.
 */
export class DataKey extends Construct {
  readonly key: Key;
  /**
   * The same key as the database and backups take it: grants on it go into the grantees' IAM
   * policies (its key policy lets the account's IAM decide), never into the key policy, which
   * would make the key wait for the functions' roles, and so for the migrations, and so for the
   * secrets the key encrypts.
   */
  readonly forGrants: IKey;

  constructor(scope: Construct, id: string, { config }: { config: StageConfig }) {
    super(scope, id);
    this.key = new Key(this, 'Key', {
      description: `${config.stackName}: Aurora storage, snapshots, the master secret`,
      enableKeyRotation: true,
      // Previews are disposable; prod's key outlives the stack (its snapshots need it).
      removalPolicy: config.removalPolicy,
      pendingWindow: Duration.days(config.durable ? 30 : 7),
    });
    this.forGrants = Key.fromKeyArn(this, 'ForGrants', this.key.keyArn);
    // A cross-account copy decrypts the recovery point with this key and re-encrypts it with the
    // destination vault's: the backup account must be allowed to use the key, and nothing more.
    const copyVaultArn = config.backup?.copyVaultArn;
    if (copyVaultArn) {
      const backupAccount = new AccountPrincipal(accountOfVault(copyVaultArn));
      this.key.addToResourcePolicy(
        new PolicyStatement({
          sid: 'BackupAccountCopies',
          principals: [backupAccount],
          actions: ['kms:Decrypt', 'kms:DescribeKey', 'kms:ReEncryptFrom'],
          resources: ['*'],
        }),
      );
      this.key.addToResourcePolicy(
        new PolicyStatement({
          sid: 'BackupAccountCopyGrants',
          principals: [backupAccount],
          actions: ['kms:CreateGrant'],
          resources: ['*'],
          conditions: { Bool: { 'kms:GrantIsForAWSResource': true } },
        }),
      );
    }
  }
}

/** The backup actions nobody may take on the copy vault, the prod deploy role included. */
export const PROTECTED_VAULT_ACTIONS = [
  'backup:DeleteBackupVault',
  'backup:DeleteBackupVaultAccessPolicy',
  'backup:DeleteBackupVaultLockConfiguration',
  'backup:DeleteRecoveryPoint',
  'backup:PutBackupVaultAccessPolicy',
  'backup:UpdateRecoveryPointLifecycle',
];

/**
 * AWS Backup of the cluster, on stages that keep data: a daily backup kept `keepDays` days in the
 * stage's vault, copied to a second vault. By default that vault is the stack's own, under a vault
 * lock (minimum retention `keepDays`) whose access policy denies deleting recovery points, the
 * vault or its policy to every principal: a compromised or mistaken prod deploy can delete the
 * stack and its vault, not that copy. With `copyVaultArn` the copy goes to a vault in a backup
 * account instead, which nothing in the prod account can reach (docs/deploying.md).
 */
export class Backups extends Construct {
  readonly plan: BackupPlan;
  readonly vault: BackupVault;
  readonly copyVault: IBackupVault;

  constructor(
    scope: Construct,
    id: string,
    {
      config,
      database,
      key,
      keepDays,
    }: { config: StageConfig; database: Database; key: IKey; keepDays: number },
  ) {
    super(scope, id);
    const retention = Duration.days(keepDays);
    this.vault = new BackupVault(this, 'Vault', { encryptionKey: key, removalPolicy: config.removalPolicy });
    const copyVaultArn = config.backup?.copyVaultArn;
    this.copyVault = copyVaultArn
      ? BackupVault.fromBackupVaultArn(this, 'BackupAccountVault', copyVaultArn)
      : this.lockedCopyVault(config, key, retention);
    this.plan = new BackupPlan(this, 'Plan', { backupVault: this.vault });
    this.plan.addRule(
      new BackupPlanRule({
        ruleName: 'Daily',
        scheduleExpression: Schedule.cron({ hour: '2', minute: '0' }),
        deleteAfter: retention,
        copyActions: [{ destinationBackupVault: this.copyVault, deleteAfter: retention }],
        // Continuous backup too: point-in-time restore to any second of the last `keepDays` days.
        enableContinuousBackup: true,
      }),
    );
    const selection = this.plan.addSelection('Cluster', {
      resources: [BackupResource.fromArn(database.cluster.clusterArn)],
    });
    Validations.of(selection).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSBackupServiceRolePolicyForBackup]',
      reason: "AWS Backup's own policy for taking backups of the selected resources",
    });
  }

  /** The stack's own vault for the copies: retained, locked, and closed to every principal's deletes. */
  private lockedCopyVault(config: StageConfig, key: IKey, retention: Duration): BackupVault {
    return new BackupVault(this, 'CopyVault', {
      backupVaultName: `${config.stackName}-protected-copies`,
      encryptionKey: key,
      removalPolicy: RemovalPolicy.RETAIN,
      lockConfiguration: { minRetention: retention },
      accessPolicy: new PolicyDocument({
        statements: [
          new PolicyStatement({
            sid: 'NobodyDeletesCopies',
            effect: Effect.DENY,
            principals: [new AnyPrincipal()],
            actions: PROTECTED_VAULT_ACTIONS,
            resources: ['*'],
          }),
        ],
      }),
    });
  }
}
