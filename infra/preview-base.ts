import { type App, CfnOutput, Duration, Fn, RemovalPolicy, Stack, Tags, Validations } from 'aws-cdk-lib';
import { CfnAccount } from 'aws-cdk-lib/aws-apigateway';
import { Port } from 'aws-cdk-lib/aws-ec2';
import { ManagedPolicy, PermissionsBoundary, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  CaCertificate,
  ClusterInstance,
  Credentials,
  DatabaseCluster,
  ParameterGroup,
} from 'aws-cdk-lib/aws-rds';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { Construct } from 'constructs';
import { BOUNDARY_POLICY_NAME } from './account-policies.ts';
import { ENGINE } from './constructs/database.ts';
import { Network } from './constructs/network.ts';
import { giveProvidersLogGroups } from './constructs/provider-logs.ts';
import { PREVIEW_BASE, type StageConfig, stageConfig } from './stage.ts';

/** `VoiceAgentAdmin-previews`: also the prefix of every export branch stacks import. */
export const PREVIEW_BASE_STACK = stageConfig(PREVIEW_BASE).stackName;

/** The outputs branch previews import by name (`<stack>-<key>`), see infra/constructs/preview-database.ts. */
export const BASE_EXPORTS = [
  'VpcId',
  'AvailabilityZones',
  'IsolatedSubnetIds',
  'FunctionsSecurityGroupId',
  'ClusterEndpoint',
  'ClusterResourceId',
  'MasterSecretArn',
] as const;
export type BaseExport = (typeof BASE_EXPORTS)[number];
export const exportName = (key: BaseExport) => `${PREVIEW_BASE_STACK}-${key}`;
/** Subnets (and AZs) of the base: branch stacks split the exported lists into this many. */
export const BASE_AZS = 2;

/**
 * The shared cluster's sizing. Minimum 0: it pauses after `autoPause` without connections, and
 * the idle timeouts below make sure frozen Lambda containers cannot keep it awake.
 */
export const PREVIEW_CLUSTER = {
  minCapacity: 0,
  maxCapacity: 4,
  autoPause: Duration.minutes(5),
  /**
   * The server closes a session idle this long. A frozen Lambda container's postgres.js pool
   * cannot run its own 20 s idle timer (db/postgres-client.ts), so without this its connection
   * stays open until the container is reaped (up to hours) and the cluster never pauses. Above the
   * pool's 20 s, so a live container's client normally closes first.
   */
  idleSessionTimeoutMs: 60_000,
  /** A transaction left open (a crashed migration, an operator's psql) would hold the cluster awake too. */
  idleInTransactionSessionTimeoutMs: 60_000,
} as const;

/**
 * Deployed once per account and region, before any branch preview: an isolated VPC (no NAT), one
 * Aurora Serverless v2 cluster that scales to zero, the Secrets Manager endpoint, the master
 * secret (RDS keeps and rotates it), and one security group every branch's functions run in, already allowed to the
 * cluster and the endpoint, so branch stacks add no rules to the base. Branches are isolated
 * from each other by their database roles (CONNECT on their own database only), not by network.
 */
export class PreviewBaseStack extends Stack {
  readonly network: Network;
  readonly cluster: DatabaseCluster;

  constructor(scope: Construct, id: string, { config }: { config: StageConfig }) {
    const tags = { project: 'voice-agent-admin-api', stage: config.stage };
    super(scope, id, {
      description: 'Voice agent administration API: the shared base of every branch preview',
      // Branch stacks import its outputs; CloudFormation refuses to delete it while any does.
      terminationProtection: true,
      tags,
    });
    this.network = new Network(this, 'Network', { config });
    const network = this.network;
    const parameterGroup = new ParameterGroup(this, 'Parameters', {
      engine: ENGINE,
      description: 'TLS required; idle sessions closed so that the cluster can pause',
      parameters: {
        'rds.force_ssl': '1',
        idle_session_timeout: String(PREVIEW_CLUSTER.idleSessionTimeoutMs),
        idle_in_transaction_session_timeout: String(PREVIEW_CLUSTER.idleInTransactionSessionTimeoutMs),
      },
    });
    this.cluster = new DatabaseCluster(this, 'Cluster', {
      engine: ENGINE,
      parameterGroup,
      // RDS keeps and rotates the password (no rotation function, role or nested stack); the
      // secret holds user name and password only: branch functions get host and database by environment.
      credentials: Credentials.fromUsername('postgres'),
      manageMasterUserPassword: true,
      // Branch app roles log in with IAM tokens (`rds_iam`, granted by each branch's migration).
      iamAuthentication: true,
      writer: ClusterInstance.serverlessV2('Writer', {
        publiclyAccessible: false,
        caCertificate: CaCertificate.RDS_CA_RSA2048_G1,
        enablePerformanceInsights: false,
      }),
      serverlessV2MinCapacity: PREVIEW_CLUSTER.minCapacity,
      serverlessV2MaxCapacity: PREVIEW_CLUSTER.maxCapacity,
      serverlessV2AutoPauseDuration: PREVIEW_CLUSTER.autoPause,
      vpc: network.vpc,
      vpcSubnets: network.isolated,
      securityGroups: [network.securityGroup(this, 'ClusterSecurityGroup', 'Shared preview Aurora cluster')],
      storageEncrypted: true,
      backup: { retention: Duration.days(1), preferredWindow: '03:00-04:00' },
      preferredMaintenanceWindow: 'sun:04:30-sun:05:30',
      deletionProtection: false,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    Validations.of(this.cluster).acknowledge({
      id: 'AwsSolutions-RDS10',
      reason: 'Holds only disposable preview databases; the stack has termination protection instead',
    });
    const masterSecret = this.cluster.secret as ISecret;

    const functions = network.securityGroup(this, 'FunctionsSecurityGroup', 'Every branch preview function');
    this.cluster.connections.allowFrom(functions, Port.tcp(5432), 'Postgres from branch preview functions');
    network.allowSecretsFrom(functions, 'Secrets Manager from branch preview functions');
    network.allowLambdaFrom(
      functions,
      'Lambda from branch preview admin functions (the usage-plan key function)',
    );

    // API Gateway's CloudWatch role is one setting per account and region: set here, once, for
    // every preview's access logs, never by a preview (deleting one would unset it for all).
    const apiGatewayLogs = new Role(this, 'ApiGatewayLogsRole', {
      assumedBy: new ServicePrincipal('apigateway.amazonaws.com'),
      description: "API Gateway's account role: every preview's access logs",
      managedPolicies: [
        ManagedPolicy.fromAwsManagedPolicyName('service-role/AmazonAPIGatewayPushToCloudWatchLogs'),
      ],
    });
    new CfnAccount(this, 'ApiGatewayAccount', { cloudWatchRoleArn: apiGatewayLogs.roleArn });
    Validations.of(apiGatewayLogs).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
      reason:
        'The account role API Gateway needs to write access logs; AWS documents this managed policy for it',
    });

    const output = (key: BaseExport, value: string, description: string) =>
      new CfnOutput(this, key, { value, description, exportName: exportName(key) });
    output('VpcId', network.vpc.vpcId, 'The previews VPC');
    output('AvailabilityZones', Fn.join(',', network.vpc.availabilityZones), 'Its AZs, comma-separated');
    output(
      'IsolatedSubnetIds',
      Fn.join(
        ',',
        network.vpc.isolatedSubnets.map((s) => s.subnetId),
      ),
      'Its isolated subnets, comma-separated, in AZ order',
    );
    output(
      'FunctionsSecurityGroupId',
      functions.securityGroupId,
      'The security group of every branch function',
    );
    output('ClusterEndpoint', this.cluster.clusterEndpoint.hostname, 'Writer endpoint of the shared cluster');
    output(
      'ClusterResourceId',
      this.cluster.clusterResourceIdentifier,
      'For the rds-db:connect grant of each branch app role (IAM database authentication)',
    );
    output(
      'MasterSecretArn',
      masterSecret.secretArn,
      'Master user: branch database creation and migrations only',
    );
    // Its roles (flow logs, the default-SG provider) stay inside the account's boundary like every
    // branch stack's (infra/account-policies.ts).
    PermissionsBoundary.of(this).apply(
      ManagedPolicy.fromManagedPolicyName(this, 'RoleBoundary', BOUNDARY_POLICY_NAME),
    );
    for (const [key, value] of Object.entries(tags)) Tags.of(this).add(key, value);
    giveProvidersLogGroups(this, config);
  }
}

/** The preview base's app, with the same cdk-nag checks as every other stage. */
export function defineBaseApp(app: App): PreviewBaseStack {
  const config = stageConfig(PREVIEW_BASE);
  const stack = new PreviewBaseStack(app, config.stackName, { config });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return stack;
}
