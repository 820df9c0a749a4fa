import {
  FlowLogDestination,
  FlowLogTrafficType,
  type IConnectable,
  type InterfaceVpcEndpoint,
  InterfaceVpcEndpointAwsService,
  type ISecurityGroup,
  type IVpc,
  SecurityGroup,
  type SubnetSelection,
  SubnetType,
  Vpc,
} from 'aws-cdk-lib/aws-ec2';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct, type IConstruct } from 'constructs';
import type { StageConfig } from '../stage.ts';

/**
 * Where functions run and how they reach Secrets Manager: a stack's own `Network`, or a branch
 * preview's view of the preview base's (infra/constructs/preview-database.ts).
 */
export interface NetworkPlacement extends IConstruct {
  readonly vpc: IVpc;
  readonly isolated: SubnetSelection;
  securityGroup(scope: Construct, id: string, description: string): ISecurityGroup;
  allowSecretsFrom(client: IConnectable, description: string): void;
  /** HTTPS from `client` to the Lambda API (the admin function invokes the usage-plan key function). */
  allowLambdaFrom(client: IConnectable, description: string): void;
}

/**
 * A VPC with isolated subnets only: the database and the functions live there, and the AWS APIs
 * the functions call (Secrets Manager; RDS where migrations snapshot the cluster) are reached
 * through interface endpoints, so there is no NAT gateway to pay for and no route to the internet.
 */
export class Network extends Construct implements NetworkPlacement {
  readonly vpc: Vpc;
  readonly isolated: SubnetSelection = { subnetType: SubnetType.PRIVATE_ISOLATED };
  readonly secretsEndpoint: InterfaceVpcEndpoint;
  #rdsApiEndpoint?: InterfaceVpcEndpoint;
  #eventBridgeEndpoint?: InterfaceVpcEndpoint;
  #lambdaEndpoint?: InterfaceVpcEndpoint;

  constructor(scope: Construct, id: string, { config }: { config: StageConfig }) {
    super(scope, id);
    this.vpc = new Vpc(this, 'Vpc', {
      maxAzs: 2,
      natGateways: 0,
      subnetConfiguration: [{ name: 'isolated', subnetType: SubnetType.PRIVATE_ISOLATED, cidrMask: 24 }],
      restrictDefaultSecurityGroup: true,
    });
    // Rejected traffic is what explains a function that cannot reach its database.
    const flowLogs = new LogGroup(this, 'FlowLogs', {
      retention: config.logRetention,
      removalPolicy: config.removalPolicy,
    });
    this.vpc.addFlowLog('FlowLog', {
      destination: FlowLogDestination.toCloudWatchLogs(flowLogs),
      trafficType: FlowLogTrafficType.REJECT,
    });
    this.secretsEndpoint = this.vpc.addInterfaceEndpoint('SecretsManager', {
      service: InterfaceVpcEndpointAwsService.SECRETS_MANAGER,
      subnets: { subnets: this.vpc.isolatedSubnets.slice(0, config.secretsEndpointAzs) },
      privateDnsEnabled: true,
      open: false,
    });
  }

  /** A security group that may send nothing until a destination is granted to it. */
  securityGroup(scope: Construct, id: string, description: string): SecurityGroup {
    return new SecurityGroup(scope, id, { vpc: this.vpc, description, allowAllOutbound: false });
  }

  /**
   * HTTPS from `client` to the RDS API (the migration function's snapshots), through an endpoint
   * made on first use, in one AZ: it serves a call per deploy, and reaches every subnet.
   */
  allowRdsApiFrom(client: IConnectable, description: string): void {
    this.#rdsApiEndpoint ??= this.vpc.addInterfaceEndpoint('RdsApi', {
      service: InterfaceVpcEndpointAwsService.RDS,
      subnets: { subnets: this.vpc.isolatedSubnets.slice(0, 1) },
      privateDnsEnabled: true,
      open: false,
    });
    this.#rdsApiEndpoint.connections.allowDefaultPortFrom(client, description);
  }

  /**
   * HTTPS from `client` to EventBridge (the outbox relay's PutEvents), through an endpoint made on
   * first use, in one AZ: one small call a minute.
   */
  allowEventBridgeFrom(client: IConnectable, description: string): void {
    this.#eventBridgeEndpoint ??= this.vpc.addInterfaceEndpoint('EventBridge', {
      service: InterfaceVpcEndpointAwsService.EVENTBRIDGE,
      subnets: { subnets: this.vpc.isolatedSubnets.slice(0, 1) },
      privateDnsEnabled: true,
      open: false,
    });
    this.#eventBridgeEndpoint.connections.allowDefaultPortFrom(client, description);
  }

  /**
   * HTTPS from `client` to Lambda (the admin function invokes the usage-plan key function outside
   * the VPC), through an endpoint made on first use, in one AZ: a call per admin command.
   */
  allowLambdaFrom(client: IConnectable, description: string): void {
    this.#lambdaEndpoint ??= this.vpc.addInterfaceEndpoint('Lambda', {
      service: InterfaceVpcEndpointAwsService.LAMBDA,
      subnets: { subnets: this.vpc.isolatedSubnets.slice(0, 1) },
      privateDnsEnabled: true,
      open: false,
    });
    this.#lambdaEndpoint.connections.allowDefaultPortFrom(client, description);
  }

  /** HTTPS from `client` to Secrets Manager through the endpoint. */
  allowSecretsFrom(client: IConnectable, description: string): void {
    this.secretsEndpoint.connections.allowDefaultPortFrom(client, description);
  }
}
