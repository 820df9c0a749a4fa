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
 * A VPC with isolated subnets: the database and the functions live there, and the AWS APIs the
 * functions call (Secrets Manager; RDS where migrations snapshot the cluster; SQS with webhooks)
 * are reached through interface endpoints, so there is no route to the internet. With webhooks
 * (`config.webhooks`), and only then, a public subnet with one NAT gateway and private subnets
 * behind it: the webhook delivery function's way out, the only function placed there.
 */
export class Network extends Construct implements NetworkPlacement {
  readonly vpc: Vpc;
  readonly isolated: SubnetSelection = { subnetType: SubnetType.PRIVATE_ISOLATED };
  readonly secretsEndpoint: InterfaceVpcEndpoint;
  #rdsApiEndpoint?: InterfaceVpcEndpoint;
  #eventBridgeEndpoint?: InterfaceVpcEndpoint;
  #lambdaEndpoint?: InterfaceVpcEndpoint;
  #sqsEndpoint?: InterfaceVpcEndpoint;
  /** Private subnets with a route out through the NAT gateway; only where webhooks are enabled. */
  readonly egress?: SubnetSelection;

  constructor(scope: Construct, id: string, { config }: { config: StageConfig }) {
    super(scope, id);
    this.vpc = new Vpc(this, 'Vpc', {
      maxAzs: 2,
      // One NAT gateway (one AZ): a webhook waits for its retry if that AZ fails, the API does not.
      natGateways: config.webhooks ? 1 : 0,
      // The isolated subnets first, so that enabling webhooks adds subnets without moving them.
      subnetConfiguration: [
        { name: 'isolated', subnetType: SubnetType.PRIVATE_ISOLATED, cidrMask: 24 },
        ...(config.webhooks
          ? [
              { name: 'public', subnetType: SubnetType.PUBLIC, cidrMask: 26, mapPublicIpOnLaunch: false },
              { name: 'egress', subnetType: SubnetType.PRIVATE_WITH_EGRESS, cidrMask: 24 },
            ]
          : []),
      ],
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
    if (config.webhooks) this.egress = { subnetType: SubnetType.PRIVATE_WITH_EGRESS };
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

  /**
   * HTTPS from `client` to SQS (the webhook delivery queue), through an endpoint made on first
   * use, in one AZ: the relay's, the requeue's and the delivery function's sends stay inside.
   */
  allowSqsFrom(client: IConnectable, description: string): void {
    this.#sqsEndpoint ??= this.vpc.addInterfaceEndpoint('Sqs', {
      service: InterfaceVpcEndpointAwsService.SQS,
      subnets: { subnets: this.vpc.isolatedSubnets.slice(0, 1) },
      privateDnsEnabled: true,
      open: false,
    });
    this.#sqsEndpoint.connections.allowDefaultPortFrom(client, description);
  }

  /** HTTPS from `client` to Secrets Manager through the endpoint. */
  allowSecretsFrom(client: IConnectable, description: string): void {
    this.secretsEndpoint.connections.allowDefaultPortFrom(client, description);
  }
}
