import { Duration, Names, Stack, Validations } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { type CfnFunction, Function as LambdaFunction, LoggingFormat } from 'aws-cdk-lib/aws-lambda';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { USAGE_PLAN_KEYS_FUNCTION_ENV } from '#functions/usage-plan-keys-remote.ts';
import type { StageConfig } from '../stage.ts';
import { ENTRY_METADATA, nodeFunctionProps } from './lambda.ts';
import type { NetworkPlacement } from './network.ts';
import type { UsagePlans } from './usage-plans.ts';

export const USAGE_PLAN_KEYS_ENTRY = 'functions/usage-plan-keys-handler.ts';

/**
 * The function that keeps workspaces' API keys in their plans, outside the VPC: API Gateway's
 * management API has no interface endpoint, and the isolated subnets no NAT. The admin function
 * (in the VPC, for the database) invokes it through the Lambda endpoint (docs/decisions.md).
 */
export class UsagePlanKeysFunction extends Construct {
  readonly function: LambdaFunction;

  constructor(
    scope: Construct,
    id: string,
    {
      config,
      usagePlans,
      admin,
      network,
      shareAdminRole = false,
    }: {
      config: StageConfig;
      usagePlans: UsagePlans;
      admin: LambdaFunction;
      network: NetworkPlacement;
      /** A branch preview's: the admin function's role, so a preview holds no role more. */
      shareAdminRole?: boolean;
    },
  ) {
    super(scope, id);
    // With a shared role, a reference to the function from the role's policy would make the role
    // wait for the function that waits for it: the function is named, and named by string.
    const functionName = Names.uniqueResourceName(this, { maxLength: 64, separator: '-' });
    this.function = new LambdaFunction(this, 'Function', {
      ...(shareAdminRole ? { functionName, role: admin.role } : {}),
      ...nodeFunctionProps(USAGE_PLAN_KEYS_ENTRY),
      memorySize: 256,
      timeout: Duration.seconds(20),
      description: "Keeps each workspace's API key in its tier's usage plan (invoked by the admin function)",
      loggingFormat: LoggingFormat.JSON,
      logGroup: new LogGroup(this, 'Logs', {
        retention: config.logRetention,
        removalPolicy: config.removalPolicy,
      }),
    });
    (this.function.node.defaultChild as CfnFunction).addMetadata(ENTRY_METADATA, USAGE_PLAN_KEYS_ENTRY);
    usagePlans.grantKeyManagement(this.function);
    // The function itself, no version or alias: the admin function invokes $LATEST.
    // Shared role: the grant and the variable name the function by string, never by reference.
    const { partition, region, account } = Stack.of(this);
    const target = shareAdminRole
      ? { arn: `arn:${partition}:lambda:${region}:${account}:function:${functionName}`, name: functionName }
      : { arn: this.function.functionArn, name: this.function.functionName };
    admin.addToRolePolicy(
      new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [target.arn] }),
    );
    admin.addEnvironment(USAGE_PLAN_KEYS_FUNCTION_ENV, target.name);
    network.allowLambdaFrom(admin, 'Lambda from the admin function (the usage-plan key function)');
    Validations.of(this.function).acknowledge(
      {
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        reason: 'AWS-managed log writes for the key function',
      },
      {
        id: 'AwsSolutions-L1',
        reason: 'Node.js 22 on purpose: the version the code is written and tested for (docs/decisions.md)',
      },
    );
  }
}
