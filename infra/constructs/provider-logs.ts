import { CfnResource, type Stack } from 'aws-cdk-lib';
import { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { StageConfig } from '../stage.ts';

/**
 * The functions CDK adds by itself (the custom resource providers of the migration trigger and of
 * the VPC's default security group) are raw `AWS::Lambda::Function` resources whose log group
 * Lambda would create on first run, never expiring and left behind by `cdk destroy`. Each gets an
 * explicit one here, with the stage's retention and removal policy, named in its LoggingConfig.
 * Run once the stack is complete: functions added later are not seen.
 */
export function giveProvidersLogGroups(stack: Stack, config: StageConfig): LogGroup[] {
  const providers = stack.node
    .findAll()
    .filter(
      (c): c is CfnResource =>
        c instanceof CfnResource &&
        c.cfnResourceType === 'AWS::Lambda::Function' &&
        !(c instanceof CfnFunction),
    );
  return providers.map((provider) => {
    const logs = new LogGroup(stack, `${provider.node.scope?.node.id ?? ''}${provider.node.id}Logs`, {
      retention: config.logRetention,
      removalPolicy: config.removalPolicy,
    });
    provider.addPropertyOverride('LoggingConfig.LogGroup', logs.logGroupName);
    return logs;
  });
}
