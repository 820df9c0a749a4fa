import { Validations } from 'aws-cdk-lib';
import { type IConnectable, Port } from 'aws-cdk-lib/aws-ec2';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import {
  AuroraPostgresEngineVersion,
  CaCertificate,
  ClientPasswordAuthType,
  ClusterInstance,
  Credentials,
  DatabaseCluster,
  DatabaseClusterEngine,
  type DatabaseProxy,
  DatabaseSecret,
  ParameterGroup,
} from 'aws-cdk-lib/aws-rds';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import type { StageConfig } from '../stage.ts';
import type { Network } from './network.ts';

/** 17.x supports a 0-ACU minimum (auto-pause), which previews rely on. */
export const ENGINE = DatabaseClusterEngine.auroraPostgres({ version: AuroraPostgresEngineVersion.VER_17_5 });
export const DATABASE_NAME = 'voice_agent_admin';

/**
 * Lambda's Node.js 20+ runtimes no longer load Amazon's CA bundle by default; it ships at this
 * path and is loaded when NODE_EXTRA_CA_CERTS names it. Needed to verify the cluster's RDS
 * certificate; RDS Proxy presents an ACM certificate that Node's own roots already trust.
 */
export const RUNTIME_CA_BUNDLE = '/var/runtime/ca-cert.pem';

/** `pooled`: through RDS Proxy when the stage has one. `direct`: always the writer itself. */
export type DatabaseRoute = 'pooled' | 'direct';

/**
 * Aurora PostgreSQL Serverless v2 with generated credentials in Secrets Manager, encrypted
 * storage and TLS required; in prod an RDS Proxy (TLS required) pools the functions' connections.
 */
export class Database extends Construct {
  readonly cluster: DatabaseCluster;
  readonly secret: ISecret;
  readonly proxy?: DatabaseProxy;
  readonly #network: Network;

  constructor(scope: Construct, id: string, { config, network }: { config: StageConfig; network: Network }) {
    super(scope, id);
    this.#network = network;
    const settings = config.database;
    // Created here rather than by the cluster so that its removal policy follows the stage.
    const secret = new DatabaseSecret(this, 'Secret', { username: 'postgres', dbname: DATABASE_NAME });
    secret.applyRemovalPolicy(config.removalPolicy);
    Validations.of(secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'No rotation yet: warm functions cache the password; rotate once deps re-read it on auth failure',
    });
    const parameterGroup = new ParameterGroup(this, 'Parameters', {
      engine: ENGINE,
      description: 'TLS required for every connection',
      // TLS 1.2 is already PostgreSQL's minimum; force_ssl refuses plaintext connections (Aurora default: off).
      parameters: { 'rds.force_ssl': '1' },
    });
    this.cluster = new DatabaseCluster(this, 'Cluster', {
      engine: ENGINE,
      parameterGroup,
      credentials: Credentials.fromSecret(secret),
      defaultDatabaseName: DATABASE_NAME,
      writer: ClusterInstance.serverlessV2('Writer', {
        publiclyAccessible: false,
        caCertificate: CaCertificate.RDS_CA_RSA2048_G1,
        enablePerformanceInsights: settings.performanceInsights,
      }),
      serverlessV2MinCapacity: settings.minCapacity,
      serverlessV2MaxCapacity: settings.maxCapacity,
      serverlessV2AutoPauseDuration: settings.autoPause,
      vpc: network.vpc,
      vpcSubnets: network.isolated,
      securityGroups: [network.securityGroup(this, 'ClusterSecurityGroup', 'Aurora cluster')],
      storageEncrypted: true,
      backup: { retention: settings.backupRetention, preferredWindow: '03:00-04:00' },
      preferredMaintenanceWindow: 'sun:04:30-sun:05:30',
      deletionProtection: settings.deletionProtection,
      removalPolicy: settings.removalPolicy,
    });
    Validations.of(this.cluster).acknowledge({
      id: 'AwsSolutions-RDS6',
      reason: 'Password auth from Secrets Manager (read per function); IAM tokens are not used by the app',
    });
    if (!settings.deletionProtection) {
      Validations.of(this.cluster).acknowledge({
        id: 'AwsSolutions-RDS10',
        reason: 'Preview stages are disposable and destroyed with their branch; prod has deletion protection',
      });
    }
    // The attached secret also carries the cluster's host and port.
    this.secret = this.cluster.secret ?? secret;

    if (settings.proxy) {
      const proxySecurityGroup = network.securityGroup(this, 'ProxySecurityGroup', 'RDS Proxy');
      this.proxy = this.cluster.addProxy('Proxy', {
        vpc: network.vpc,
        vpcSubnets: network.isolated,
        securityGroups: [proxySecurityGroup],
        secrets: [this.secret],
        requireTLS: true,
        iamAuth: false,
        clientPasswordAuthType: ClientPasswordAuthType.POSTGRES_SCRAM_SHA_256,
        debugLogging: false,
      });
      // Harmless if the proxy fetches its secret over the service's own path, required if not.
      network.allowSecretsFrom(proxySecurityGroup, 'Secrets Manager from RDS Proxy');
    }
  }

  /**
   * Lets `fn` (sending from `client`) open connections: read of this one secret, a path to the
   * proxy or the writer, and the environment functions/deps.ts reads.
   */
  connect(
    fn: IFunction & { addEnvironment(key: string, value: string): unknown },
    client: IConnectable,
    route: DatabaseRoute,
  ) {
    this.secret.grantRead(fn);
    this.#network.allowSecretsFrom(client, 'Secrets Manager from functions');
    const proxy = route === 'pooled' ? this.proxy : undefined;
    (proxy ?? this.cluster).connections.allowFrom(client, Port.tcp(5432), 'Postgres from functions');
    fn.addEnvironment('DATABASE_SECRET_ARN', this.secret.secretArn);
    fn.addEnvironment('DATABASE_HOST', proxy ? proxy.endpoint : this.cluster.clusterEndpoint.hostname);
    fn.addEnvironment('DATABASE_SSLMODE', 'verify-full');
    if (!proxy) fn.addEnvironment('NODE_EXTRA_CA_CERTS', RUNTIME_CA_BUNDLE);
  }
}
