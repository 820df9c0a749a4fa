import {
  Annotations,
  ArnFormat,
  type CfnElement,
  CustomResource,
  Duration,
  Fn,
  RemovalPolicy,
  Stack,
  Validations,
} from 'aws-cdk-lib';
import {
  type IConnectable,
  type ISecurityGroup,
  type IVpc,
  SecurityGroup,
  type SubnetSelection,
  SubnetType,
  Vpc,
} from 'aws-cdk-lib/aws-ec2';
import { type IRole, Policy, PolicyStatement, Role } from 'aws-cdk-lib/aws-iam';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { type ISecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Provider } from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { BASE_AZS, type BaseExport, exportName } from '../preview-base.ts';
import type { StageConfig } from '../stage.ts';
import {
  type ConfigurableFunction,
  type DatabaseAccess,
  type DatabaseRoute,
  RUNTIME_CA_BUNDLE,
} from './database.ts';
import { serviceFunction } from './lambda.ts';
import type { NetworkPlacement } from './network.ts';

/** `feature-x` → `preview_feature_x` and `app_feature_x`: identifiers db/preview-databases.ts accepts. */
export const previewDatabaseName = (stage: string) => `preview_${stage.replace(/-/g, '_')}`;
export const previewRoleName = (stage: string) => `app_${stage.replace(/-/g, '_')}`;
/** Room for a paused cluster to resume (~15 s) and a few statements; the Provider waits up to 15 min. */
export const PREVIEW_DATABASE_TIMEOUT = Duration.minutes(2);

/**
 * A branch preview's view of the preview base (infra/preview-base.ts), by its exports' names:
 * `Fn::ImportValue`, so `cdk synth` needs no AWS account, and CloudFormation refuses to change
 * or delete the base while a branch uses it. Every branch function runs in the base's one
 * functions security group, which the base already allowed to the cluster and the endpoint:
 * a branch adds no rule to the base.
 */
export class PreviewBaseImports extends Construct implements NetworkPlacement {
  readonly vpc: IVpc;
  readonly isolated: SubnetSelection = { subnetType: SubnetType.PRIVATE_ISOLATED };
  readonly functionsSecurityGroup: ISecurityGroup;
  readonly clusterEndpoint: string;
  readonly clusterResourceId: string;
  readonly masterSecret: ISecret;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const imported = (key: BaseExport) => Fn.importValue(exportName(key));
    this.vpc = Vpc.fromVpcAttributes(this, 'Vpc', {
      vpcId: imported('VpcId'),
      availabilityZones: Fn.split(',', imported('AvailabilityZones'), BASE_AZS),
      isolatedSubnetIds: Fn.split(',', imported('IsolatedSubnetIds'), BASE_AZS),
    });
    Annotations.of(this.vpc).acknowledgeWarning(
      '@aws-cdk/aws-ec2:noSubnetRouteTableId',
      'Lambda placement needs subnet ids only; the routes are the base stack’s',
    );
    // Immutable here: the rules it needs are the base's, made once.
    this.functionsSecurityGroup = SecurityGroup.fromSecurityGroupId(
      this,
      'FunctionsSecurityGroup',
      imported('FunctionsSecurityGroupId'),
      { mutable: false, allowAllOutbound: false },
    );
    this.clusterEndpoint = imported('ClusterEndpoint');
    this.clusterResourceId = imported('ClusterResourceId');
    this.masterSecret = Secret.fromSecretCompleteArn(this, 'MasterSecret', imported('MasterSecretArn'));
  }

  securityGroup(): ISecurityGroup {
    return this.functionsSecurityGroup;
  }

  /** The base allowed its functions security group to the endpoint already. */
  allowSecretsFrom(_client: IConnectable, _description: string): void {}

  /** The base allowed its functions security group to the Lambda endpoint already. */
  allowLambdaFrom(_client: IConnectable, _description: string): void {}
}

/**
 * The branch's own database on the shared cluster, and the custom resource (functions/preview-database.ts, run by CDK's `Provider`) that creates the
 * database and the role before the migration trigger runs, and drops both, open sessions and all,
 * when the stack is destroyed. The API functions connect as that role; the migration function as
 * the base's master, to this database only (DATABASE_NAME).
 */
export class PreviewDatabase extends Construct implements DatabaseAccess {
  readonly masterSecret: ISecret;
  readonly databaseName: string;
  readonly roleName: string;
  readonly resource: CustomResource;
  /**
   * The role of everything here that acts as the base's master: this handler, its provider's
   * framework function, and the migration function (constructs/migrations.ts). One role, not three:
   * a branch preview holds few (docs/deploying.md).
   */
  readonly masterRole: IRole;
  readonly #base: PreviewBaseImports;

  constructor(
    scope: Construct,
    id: string,
    { config, base }: { config: StageConfig; base: PreviewBaseImports },
  ) {
    super(scope, id);
    this.#base = base;
    this.masterSecret = base.masterSecret;
    this.databaseName = previewDatabaseName(config.stage);
    this.roleName = previewRoleName(config.stage);

    const fn = serviceFunction(this, 'Function', {
      entry: 'functions/preview-database.ts',
      description: "Creates and drops this branch's database and role on the shared preview cluster",
      timeout: PREVIEW_DATABASE_TIMEOUT,
      config,
      network: base,
      securityGroup: base.functionsSecurityGroup,
    });
    this.connect(fn, base.functionsSecurityGroup, 'master');
    // The maintenance database, not the branch's, which may not exist yet.
    fn.addEnvironment('DATABASE_NAME', 'postgres');
    this.masterRole = fn.role as Role;
    // The framework gets the handler's role as read-only (its grant would make the handler wait for
    // a policy naming the handler); the invoke permission is a policy of its own, below.
    const provider = new Provider(this, 'Provider', {
      onEventHandler: fn,
      frameworkOnEventRole: Role.fromRoleArn(this, 'FrameworkRole', this.masterRole.roleArn, {
        mutable: false,
      }),
      logGroup: new LogGroup(this, 'ProviderLogs', {
        retention: config.logRetention,
        removalPolicy: config.removalPolicy,
      }),
    });
    Validations.of(provider).acknowledge(
      {
        id: 'AwsSolutions-L1',
        reason: "CDK's custom resource framework function: its runtime is chosen by aws-cdk-lib",
      },
      {
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        reason: "CDK's custom resource framework function: AWS-managed log permissions only",
      },
      {
        id: `AwsSolutions-IAM5[Resource::<${Stack.of(this).getLogicalId(fn.node.defaultChild as CfnElement)}.Arn>:*]`,
        reason: 'Invokes the one handler function, any version or alias of it: what the framework needs',
      },
    );
    const invoke = new Policy(this, 'InvokeHandler', {
      roles: [this.masterRole],
      statements: [
        new PolicyStatement({
          actions: ['lambda:InvokeFunction'],
          resources: [fn.functionArn, `${fn.functionArn}:*`],
        }),
      ],
    });
    provider.node.findChild('framework-onEvent').node.addDependency(invoke);
    Validations.of(invoke).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${Stack.of(this).getLogicalId(fn.node.defaultChild as CfnElement)}.Arn>:*]`,
      reason: 'Invokes the one handler function, any version or alias of it: what the framework needs',
    });
    this.resource = new CustomResource(this, 'Resource', {
      serviceToken: provider.serviceToken,
      resourceType: 'Custom::PreviewDatabase',
      properties: { DatabaseName: this.databaseName, RoleName: this.roleName },
      removalPolicy: RemovalPolicy.DESTROY,
    });
  }

  /**
   * As `Database.connect`, without the network rules (the base's functions security group has
   * them). `pooled`: an IAM token for this branch's role, `rds-db:connect` on that user of the
   * base's cluster only; `master`: the base's master secret, to this branch's database.
   */
  connect(fn: ConfigurableFunction, _client: IConnectable, route: DatabaseRoute) {
    if (route === 'pooled') {
      fn.addToRolePolicy(
        new PolicyStatement({
          actions: ['rds-db:connect'],
          resources: [
            Stack.of(this).formatArn({
              service: 'rds-db',
              resource: 'dbuser',
              resourceName: `${this.#base.clusterResourceId}/${this.roleName}`,
              arnFormat: ArnFormat.COLON_RESOURCE_NAME,
            }),
          ],
        }),
      );
      fn.addEnvironment('DATABASE_IAM_USER', this.roleName);
    } else {
      this.masterSecret.grantRead(fn);
      fn.addEnvironment('DATABASE_SECRET_ARN', this.masterSecret.secretArn);
    }
    fn.addEnvironment('DATABASE_NAME', this.databaseName);
    fn.addEnvironment('DATABASE_HOST', this.#base.clusterEndpoint);
    fn.addEnvironment('DATABASE_SSLMODE', 'verify-full');
    fn.addEnvironment('NODE_EXTRA_CA_CERTS', RUNTIME_CA_BUNDLE);
  }

  /** The migration creates the role's privileges and grants it `rds_iam`: it needs the name only. */
  shareAppRole(fn: ConfigurableFunction) {
    fn.addEnvironment('APP_IAM_USER', this.roleName);
  }
}
