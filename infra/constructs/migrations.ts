import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { ArnFormat, Duration, Stack, Validations } from 'aws-cdk-lib';
import type { ISecurityGroup } from 'aws-cdk-lib/aws-ec2';
import { type IRole, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import type { DatabaseCluster } from 'aws-cdk-lib/aws-rds';
import { Trigger } from 'aws-cdk-lib/triggers';
import { Construct } from 'constructs';
import { SNAPSHOT_CLUSTER_ENV, SNAPSHOT_PREFIX_ENV } from '#functions/cluster-snapshot.ts';
import { repoRoot, type StageConfig } from '../stage.ts';
import type { DatabaseAccess } from './database.ts';
import { serviceFunction } from './lambda.ts';
import type { Network, NetworkPlacement } from './network.ts';

export const MIGRATIONS_SOURCE = 'db/migrations';
/** Where db/migrate.ts looks in a bundle: `./migrations` beside it. */
export const MIGRATIONS_IN_BUNDLE = 'migrations';
/**
 * Under the trigger provider's own 15 min (it waits for this invocation), and room for a cluster
 * resuming from auto-pause (~15 s), lock-timeout retries, and one statement of up to the migration
 * session's 10 min (db/migrate.ts).
 */
export const MIGRATION_TIMEOUT = Duration.minutes(14);

export interface MigrationsProps {
  readonly config: StageConfig;
  readonly network: NetworkPlacement;
  readonly database: DatabaseAccess;
  /** Not updated until the migrations have been applied. */
  readonly runBefore: readonly Construct[];
  /**
   * The stage's own cluster and network: where `config.snapshotBeforeMigrations`, migrations that
   * change existing tables wait for a snapshot of it (functions/cluster-snapshot.ts).
   */
  readonly owned?: { readonly cluster: DatabaseCluster; readonly network: Network };
  /** A role to share (a branch preview's master role, constructs/preview-database.ts); default its own. */
  readonly role?: IRole;
}

/**
 * Runs functions/migrate.ts on deploy. The committed migration files are copied into its bundle,
 * so the bundle's hash, and with it the function version the trigger watches, changes exactly
 * when they (or the migrate code) change; then the trigger runs again. It runs after the network
 * and the database exist and before the API functions are created or updated, so new code never
 * meets an old schema.
 */
export class Migrations extends Construct {
  readonly function: LambdaFunction;
  readonly trigger: Trigger;

  constructor(
    scope: Construct,
    id: string,
    { config, network, database, runBefore, owned, role }: MigrationsProps,
  ) {
    super(scope, id);
    const securityGroup = network.securityGroup(this, 'SecurityGroup', 'Migration function');
    this.function = serviceFunction(this, 'Function', {
      entry: 'functions/migrate.ts',
      description: 'Applies db/migrations (deploy trigger)',
      timeout: MIGRATION_TIMEOUT,
      config,
      network,
      securityGroup,
      afterBundling: (outputDir) =>
        cpSync(join(repoRoot, MIGRATIONS_SOURCE), join(outputDir, MIGRATIONS_IN_BUNDLE), { recursive: true }),
      // One run at a time: two would contend for the same locks. Branch previews reserve nothing
      // (their deploys are serialised per stack by CI, and drizzle's journal is transactional).
      reservedConcurrency: config.sharedCluster ? undefined : 1,
      role,
    });
    // DDL goes to the writer itself as master, never through the proxy's pooled sessions; the
    // app role it creates gets IAM authentication, no password (db/roles.ts).
    database.connect(this.function, securityGroup, 'master');
    database.shareAppRole(this.function);
    if (database.masterSecretKey) this.decryptSecretWith(database.masterSecretKey);
    if (config.snapshotBeforeMigrations && owned) this.snapshotFirst(config, owned, securityGroup);
    this.trigger = new Trigger(this, 'Trigger', {
      handler: this.function,
      timeout: MIGRATION_TIMEOUT,
      executeOnHandlerChange: true,
      executeAfter: [network, database, securityGroup],
      executeBefore: [...runBefore],
    });
  }

  /**
   * Reading the master secret decrypts it with the stage's key, on the caller's permission. CDK
   * grants that only for a secret it created with the key in hand; the key here is imported
   * (`Key.fromKeyArn`, data-safety.ts), so the grant is written out, for Secrets Manager's use only.
   */
  private decryptSecretWith(key: IKey) {
    this.function.addToRolePolicy(
      new PolicyStatement({
        sid: 'DecryptTheMasterSecret',
        actions: ['kms:Decrypt'],
        resources: [key.keyArn],
        conditions: {
          StringEquals: { 'kms:ViaService': `secretsmanager.${Stack.of(this).region}.amazonaws.com` },
        },
      }),
    );
  }

  /**
   * Lets the function snapshot the cluster before a migration that changes tables: the RDS API
   * through its VPC endpoint, creating (tagged) and reading snapshots named `<stack>-…` of this
   * cluster only.
   */
  private snapshotFirst(
    config: StageConfig,
    { cluster, network }: NonNullable<MigrationsProps['owned']>,
    client: ISecurityGroup,
  ) {
    // RDS keeps identifiers in lower case, and the ARNs IAM matches carry them so.
    const prefix = config.stackName.toLowerCase();
    this.function.addEnvironment(SNAPSHOT_CLUSTER_ENV, cluster.clusterIdentifier);
    this.function.addEnvironment(SNAPSHOT_PREFIX_ENV, prefix);
    network.allowRdsApiFrom(client, 'RDS API from the migration function (snapshots)');
    const snapshots = Stack.of(this).formatArn({
      service: 'rds',
      resource: 'cluster-snapshot',
      resourceName: `${prefix}-*`,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
    this.function.addToRolePolicy(
      new PolicyStatement({
        sid: 'SnapshotBeforeMigrations',
        actions: ['rds:CreateDBClusterSnapshot'],
        resources: [cluster.clusterArn, snapshots],
      }),
    );
    this.function.addToRolePolicy(
      new PolicyStatement({
        sid: 'TagAndWatchTheSnapshot',
        actions: ['rds:AddTagsToResource', 'rds:DescribeDBClusterSnapshots'],
        resources: [snapshots],
      }),
    );
    Validations.of(this.function).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:rds:<AWS::Region>:<AWS::AccountId>:cluster-snapshot:${prefix}-*]`,
      reason: 'Snapshot names carry the migration and the time; the prefix keeps them to this stack',
    });
  }
}
