import { Duration, Validations } from 'aws-cdk-lib';
import { type IConnectable, Port } from 'aws-cdk-lib/aws-ec2';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import {
  AuroraPostgresEngineVersion,
  CaCertificate,
  ClusterInstance,
  Credentials,
  DatabaseCluster,
  DatabaseClusterEngine,
  type DatabaseProxy,
  DefaultAuthScheme,
  ParameterGroup,
} from 'aws-cdk-lib/aws-rds';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct, type IConstruct } from 'constructs';
import { REQUEST_TIMEOUT_MS } from '#db/client.ts';
import type { StageConfig } from '../stage.ts';
import type { Network } from './network.ts';

/** 17.x supports a 0-ACU minimum (auto-pause), which previews rely on. */
export const ENGINE = DatabaseClusterEngine.auroraPostgres({ version: AuroraPostgresEngineVersion.VER_17_5 });
export const DATABASE_NAME = 'voice_agent_admin';
/** The role the API connects as (db/roles.ts); the migration function creates it. */
export const APP_USERNAME = 'voice_agent_app';

/**
 * Lambda's Node.js 20+ runtimes no longer load Amazon's CA bundle by default; it ships at this
 * path and is loaded when NODE_EXTRA_CA_CERTS names it. Needed to verify the cluster's RDS
 * certificate; RDS Proxy presents an ACM certificate that Node's own roots already trust.
 */
export const RUNTIME_CA_BUNDLE = '/var/runtime/ca-cert.pem';

/**
 * The proxy may open at most this share of the database's max_connections: the rest is headroom
 * for what connects directly (the migration function, an operator's psql).
 */
export const PROXY_MAX_CONNECTIONS_PERCENT = 80;
export const PROXY_MAX_IDLE_CONNECTIONS_PERCENT = 40;
/**
 * How long a client waits for a pooled connection: below the request's database deadline (and so
 * the function timeout), so an exhausted pool is a 503 the handler answers, not a Lambda timeout.
 */
export const PROXY_BORROW_TIMEOUT_SECONDS = Math.floor(REQUEST_TIMEOUT_MS / 1000) - 2;

/** `pooled`: as the app role, through RDS Proxy when the stage has one. `master`: the writer itself, as master. */
export type DatabaseRoute = 'pooled' | 'master';

export type ConfigurableFunction = IFunction & { addEnvironment(key: string, value: string): unknown };

/** What the functions and the migrations need of a database: a stack's own, or a branch's on the preview base. */
export interface DatabaseAccess extends IConstruct {
  readonly masterSecret: ISecret;
  /** The customer managed key the master secret is encrypted with; none for the AWS-managed key. */
  readonly masterSecretKey?: IKey;
  connect(fn: ConfigurableFunction, client: IConnectable, route: DatabaseRoute): void;
  shareAppRole(fn: ConfigurableFunction): void;
}

/**
 * Aurora PostgreSQL Serverless v2 with encrypted storage and TLS required. The master user's
 * password is RDS's to keep: RDS creates it in Secrets Manager (encrypted with the stage's key)
 * and rotates it itself, with no rotation function, role or nested stack of ours; only the
 * migration function reads it. The application role has no password: every API function signs an
 * IAM database token (functions/database-token.ts). Prod adds a reader in the other AZ, and an
 * RDS Proxy (TLS and end-to-end IAM) pools the app's connections.
 */
export class Database extends Construct implements DatabaseAccess {
  readonly cluster: DatabaseCluster;
  /** The master user: DDL and role management. Readable by the migration function only. */
  readonly masterSecret: ISecret;
  readonly masterSecretKey?: IKey;
  readonly proxy?: DatabaseProxy;
  readonly #network: Network;

  constructor(
    scope: Construct,
    id: string,
    { config, network, key }: { config: StageConfig; network: Network; key?: IKey },
  ) {
    super(scope, id);
    this.#network = network;
    this.masterSecretKey = key;
    const settings = config.database;
    const parameterGroup = new ParameterGroup(this, 'Parameters', {
      engine: ENGINE,
      description: 'TLS required for every connection',
      // TLS 1.2 is already PostgreSQL's minimum; force_ssl refuses plaintext connections (Aurora default: off).
      parameters: { 'rds.force_ssl': '1' },
    });
    const instance = (availabilityZone: string | undefined) => ({
      publiclyAccessible: false,
      caCertificate: CaCertificate.RDS_CA_RSA2048_G1,
      enablePerformanceInsights: settings.performanceInsights,
      availabilityZone,
    });
    // With readers, each instance is pinned to its own AZ so that a failover crosses AZs.
    const azs = network.vpc.availabilityZones;
    const zoneOf = (index: number) => (settings.readers > 0 ? azs[index % azs.length] : undefined);
    this.cluster = new DatabaseCluster(this, 'Cluster', {
      engine: ENGINE,
      parameterGroup,
      // The secret holds the user name and password only: host and database come from the environment (connect).
      credentials: Credentials.fromUsername('postgres', { encryptionKey: key }),
      manageMasterUserPassword: true,
      // The app role logs in with IAM tokens (`rds_iam`, granted by the migration function).
      iamAuthentication: true,
      defaultDatabaseName: DATABASE_NAME,
      writer: ClusterInstance.serverlessV2('Writer', instance(zoneOf(0))),
      // Promotion tier 1 (scaleWithWriter): sized like the writer, so a failover lands on enough capacity.
      readers: Array.from({ length: settings.readers }, (_, i) =>
        ClusterInstance.serverlessV2(`Reader${i + 1}`, { ...instance(zoneOf(i + 1)), scaleWithWriter: true }),
      ),
      serverlessV2MinCapacity: settings.minCapacity,
      serverlessV2MaxCapacity: settings.maxCapacity,
      serverlessV2AutoPauseDuration: settings.autoPause,
      vpc: network.vpc,
      vpcSubnets: network.isolated,
      securityGroups: [network.securityGroup(this, 'ClusterSecurityGroup', 'Aurora cluster')],
      storageEncrypted: true,
      storageEncryptionKey: key,
      backup: { retention: settings.backupRetention, preferredWindow: '03:00-04:00' },
      preferredMaintenanceWindow: 'sun:04:30-sun:05:30',
      deletionProtection: settings.deletionProtection,
      removalPolicy: settings.removalPolicy,
    });
    if (!settings.deletionProtection) {
      Validations.of(this.cluster).acknowledge({
        id: 'AwsSolutions-RDS10',
        reason: 'Preview stages are disposable and destroyed with their branch; prod has deletion protection',
      });
    }
    // Deleted by RDS with the cluster, which prod retains (a final snapshot, deletion protection).
    this.masterSecret = this.cluster.secret as ISecret;

    if (settings.proxy) {
      const proxySecurityGroup = network.securityGroup(this, 'ProxySecurityGroup', 'RDS Proxy');
      // End-to-end IAM: the proxy, too, reaches the database with a token of its role, as the app role.
      const proxyRole = new Role(this, 'ProxyRole', { assumedBy: new ServicePrincipal('rds.amazonaws.com') });
      this.cluster.grantConnect(proxyRole, APP_USERNAME);
      this.proxy = this.cluster.addProxy('Proxy', {
        vpc: network.vpc,
        vpcSubnets: network.isolated,
        securityGroups: [proxySecurityGroup],
        role: proxyRole,
        // Only the app role comes through the proxy: the master user connects to the writer directly.
        defaultAuthScheme: DefaultAuthScheme.IAM_AUTH,
        requireTLS: true,
        maxConnectionsPercent: PROXY_MAX_CONNECTIONS_PERCENT,
        maxIdleConnectionsPercent: PROXY_MAX_IDLE_CONNECTIONS_PERCENT,
        borrowTimeout: Duration.seconds(PROXY_BORROW_TIMEOUT_SECONDS),
        debugLogging: false,
      });
    }
  }

  /**
   * Lets `fn` (sending from `client`) open connections: a path to the proxy or the writer, the
   * environment functions/deps.ts reads, and the credentials. `pooled`: `rds-db:connect` as the
   * app role (IAM token, `DATABASE_IAM_USER`); `master`: read of the master secret
   * (`DATABASE_SECRET_ARN`), for the migration function only.
   */
  connect(
    fn: IFunction & { addEnvironment(key: string, value: string): unknown },
    client: IConnectable,
    route: DatabaseRoute,
  ) {
    const proxy = route === 'pooled' ? this.proxy : undefined;
    (proxy ?? this.cluster).connections.allowFrom(client, Port.tcp(5432), 'Postgres from functions');
    if (route === 'pooled') {
      (proxy ?? this.cluster).grantConnect(fn, APP_USERNAME);
      fn.addEnvironment('DATABASE_IAM_USER', APP_USERNAME);
      fn.addEnvironment('DATABASE_NAME', DATABASE_NAME);
    } else {
      this.masterSecret.grantRead(fn);
      this.#network.allowSecretsFrom(client, 'Secrets Manager from functions');
      fn.addEnvironment('DATABASE_SECRET_ARN', this.masterSecret.secretArn);
      fn.addEnvironment('DATABASE_NAME', DATABASE_NAME);
    }
    fn.addEnvironment('DATABASE_HOST', proxy ? proxy.endpoint : this.cluster.clusterEndpoint.hostname);
    fn.addEnvironment('DATABASE_SSLMODE', 'verify-full');
    if (!proxy) fn.addEnvironment('NODE_EXTRA_CA_CERTS', RUNTIME_CA_BUNDLE);
  }

  /** The migration function creates the app role and grants it IAM authentication: it needs its name only. */
  shareAppRole(fn: IFunction & { addEnvironment(key: string, value: string): unknown }) {
    fn.addEnvironment('APP_IAM_USER', APP_USERNAME);
  }
}
