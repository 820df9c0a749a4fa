/**
 * The gateway's side of per-workspace limits: one API Gateway usage plan per tier of
 * contract/tiers.ts, throttling each key of the tier's pool at `usageKeyPlanOf` (the shard's
 * ceiling; each workspace's own rate and daily quota are the route functions'). The REST API takes its API keys from the
 * authorizer (API key source AUTHORIZER): the authorizer answers the usage identifier of the
 * workspace's key in its tier's fixed pool (contract/tiers.ts `USAGE_KEY_SHARDS`, keys named by the
 * stack), which the admin function keeps in the tier's plan (functions/usage-plan-keys.ts). Usage
 * plans only meter methods that require an API key, so every method behind the authorizer is
 * marked so; callers never send an `x-api-key` themselves.
 */
import { Aspects, Stack, Validations } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct, type IConstruct } from 'constructs';
import { type TierName, tierNames, USAGE_KEY_HEADROOM, usageKeyPlanOf } from '#contract/tiers.ts';
import { USAGE_KEY_PREFIX_ENV, USAGE_PLAN_IDS_ENV } from '#functions/usage-plan-keys.ts';

export interface UsagePlansProps {
  api: apigateway.RestApi;
  stage: apigateway.Stage;
}

export class UsagePlans extends Construct {
  readonly plans: Readonly<Record<TierName, apigateway.UsagePlan>>;

  constructor(scope: Construct, id: string, { api, stage }: UsagePlansProps) {
    super(scope, id);
    (api.node.defaultChild as apigateway.CfnRestApi).apiKeySourceType = 'AUTHORIZER';
    Aspects.of(api).add({
      visit(node: IConstruct) {
        if (node instanceof apigateway.CfnMethod && node.authorizationType === 'CUSTOM') {
          node.apiKeyRequired = true;
        }
      },
    });
    const plans = {} as Record<TierName, apigateway.UsagePlan>;
    for (const tier of tierNames) {
      const { rate, burst } = usageKeyPlanOf(tier);
      plans[tier] = new apigateway.UsagePlan(this, tier, {
        name: `${Stack.of(this).stackName}-${tier}`,
        description: `Tier "${tier}" (contract/tiers.ts), per pool key: ${rate} req/s, burst ${burst} (${USAGE_KEY_HEADROOM}x the tier)`,
        throttle: { rateLimit: rate, burstLimit: burst },
        apiStages: [{ api, stage }],
      });
    }
    this.plans = plans;
  }

  /** The stage's usage key prefix: its stack name (API key values are unique per account and region). */
  get keyPrefix(): string {
    return Stack.of(this).stackName;
  }

  /** The authorizer names each workspace's key of the pool: it needs the stage's prefix. */
  meterThrough(authorizer: lambda.Function) {
    authorizer.addEnvironment(USAGE_KEY_PREFIX_ENV, this.keyPrefix);
  }

  /** Each tier's plan id, for USAGE_PLAN_IDS_ENV. */
  planIdsJson(): string {
    const ids = Object.fromEntries(tierNames.map((tier) => [tier, this.plans[tier].usagePlanId]));
    return Stack.of(this).toJsonString(ids);
  }

  /**
   * Lets the admin function keep the stage's pool of keys: create, find and delete API keys, and
   * add or remove them in these plans only. API Gateway's IAM resources are paths, not key ids.
   */
  grantKeyManagement(fn: lambda.Function) {
    fn.addEnvironment(USAGE_PLAN_IDS_ENV, this.planIdsJson());
    fn.addEnvironment(USAGE_KEY_PREFIX_ENV, this.keyPrefix);
    const { region, partition } = Stack.of(this);
    const path = (p: string) => `arn:${partition}:apigateway:${region}::${p}`;
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['apigateway:GET', 'apigateway:POST'],
        resources: [path('/apikeys')],
      }),
    );
    // A preview's teardown deletes its pool; a key's path is its id, unknown until created.
    fn.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['apigateway:DELETE'], resources: [path('/apikeys/*')] }),
    );
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['apigateway:GET', 'apigateway:POST', 'apigateway:DELETE'],
        resources: tierNames.flatMap((tier) => {
          const planId = this.plans[tier].usagePlanId;
          return [path(`/usageplans/${planId}/keys`), path(`/usageplans/${planId}/keys/*`)];
        }),
      }),
    );
    const stack = Stack.of(this);
    // On the role: a preview's key function shares the admin function's, whose policy holds these.
    Validations.of(fn.role ?? fn).acknowledge(
      {
        id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:apigateway:<AWS::Region>::/apikeys/*]',
        reason:
          "Deleting the stage's pool of usage keys: API Gateway names a key by its id, unknown until created",
      },
      ...tierNames.map((tier) => ({
        id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:apigateway:<AWS::Region>::/usageplans/<${stack.getLogicalId(this.plans[tier].node.defaultChild as apigateway.CfnUsagePlan)}>/keys/*]`,
        reason:
          "A key's membership in this tier's plan: API Gateway names it by the key's id, unknown until created",
      })),
    );
  }
}
