import { Duration } from 'aws-cdk-lib';
import { Port } from 'aws-cdk-lib/aws-ec2';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { HostedRotation, RotationSchedule } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import type { StageConfig } from '../stage.ts';
import type { Database } from './database.ts';
import type { Network } from './network.ts';

export interface SecretRotationProps {
  readonly config: StageConfig;
  readonly network: Network;
  readonly database: Database;
  /** Not scheduled before these exist: the migration trigger creates the role the app secret names. */
  readonly after: readonly Construct[];
}

/**
 * Secrets Manager rotation of the master secret (single user: it changes its own password; only
 * migrations and rotation use it), by the function AWS hosts (a `HostedRotationLambda` expanded by
 * the `AWS::SecretsManager-2024-09-16` transform), placed in the isolated subnets beside the
 * database and reaching Secrets Manager through the VPC endpoint. The app role has no password to
 * rotate: it logs in with IAM tokens (functions/database-token.ts).
 *
 * The hosted function gets a name we choose, so that its log group can exist beforehand with the
 * stage's retention and is deleted with the stack instead of outliving it.
 */
export class SecretRotation extends Construct {
  readonly master: RotationSchedule;
  readonly logGroups: LogGroup[] = [];

  constructor(scope: Construct, id: string, { config, network, database, after }: SecretRotationProps) {
    super(scope, id);
    const securityGroup = network.securityGroup(this, 'SecurityGroup', 'Secret rotation functions');
    database.cluster.connections.allowFrom(securityGroup, Port.tcp(5432), 'Postgres from secret rotation');
    network.allowSecretsFrom(securityGroup, 'Secrets Manager from secret rotation');
    const placement = { vpc: network.vpc, vpcSubnets: network.isolated, securityGroups: [securityGroup] };
    const every = Duration.days(config.rotationDays);

    const masterName = this.functionName(config, 'master');
    // Schedules live here, not under the secrets: the migration trigger waits for the whole
    // Database construct, and the schedules wait for the trigger.
    this.master = new RotationSchedule(this, 'Master', {
      secret: database.masterSecret,
      hostedRotation: HostedRotation.postgreSqlSingleUser({ ...placement, functionName: masterName }),
      automaticallyAfter: every,
    });
    const logs = new LogGroup(this, 'MasterLogs', {
      logGroupName: `/aws/lambda/${masterName}`,
      retention: config.logRetention,
      removalPolicy: config.removalPolicy,
    });
    this.logGroups.push(logs);
    // The first rotation runs as soon as the schedule exists: its logs must be there, and the
    // migrations must not have the password changed under them.
    this.master.node.addDependency(logs, ...after);
  }

  /** Function names are account-wide: the stack name keeps stages apart (≤ 64 characters). */
  private functionName(config: StageConfig, which: 'master') {
    return `${config.stackName}-${which}-rotation`;
  }
}
