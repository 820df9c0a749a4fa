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
 * Secrets Manager rotation of both secrets, by the functions AWS hosts (a `HostedRotationLambda`
 * expanded by the `AWS::SecretsManager-2024-09-16` transform), placed in the isolated subnets
 * beside the database and reaching Secrets Manager through the VPC endpoint.
 *
 * - master: single user (it changes its own password; only migrations and rotation use it).
 * - app: alternating users. Rotation logs in as master, creates `voice_agent_app_clone` as a
 *   member of the app role, and from then on alternates the password it changes, so the
 *   credentials in the secret's AWSCURRENT always work while a rotation runs.
 *
 * The hosted functions get names we choose, so that their log groups can exist beforehand with
 * the stage's retention and are deleted with the stack instead of outliving it.
 */
export class SecretRotation extends Construct {
  readonly master: RotationSchedule;
  readonly app: RotationSchedule;
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
    const appName = this.functionName(config, 'app');
    this.app = new RotationSchedule(this, 'App', {
      secret: database.appSecret,
      hostedRotation: HostedRotation.postgreSqlMultiUser({
        ...placement,
        functionName: appName,
        masterSecret: database.masterSecret,
      }),
      automaticallyAfter: every,
    });
    for (const [schedule, name] of [
      [this.master, masterName],
      [this.app, appName],
    ] as const) {
      const logs = new LogGroup(this, `${name === masterName ? 'Master' : 'App'}Logs`, {
        logGroupName: `/aws/lambda/${name}`,
        retention: config.logRetention,
        removalPolicy: config.removalPolicy,
      });
      this.logGroups.push(logs);
      // The first rotation runs as soon as the schedule exists: its logs, and the app role, must be there.
      schedule.node.addDependency(logs, ...after);
    }
  }

  /** Function names are account-wide: the stack name keeps stages apart (≤ 64 characters). */
  private functionName(config: StageConfig, which: 'master' | 'app') {
    return `${config.stackName}-${which}-rotation`;
  }
}
