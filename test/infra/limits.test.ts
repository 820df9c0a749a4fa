import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { describe, expect, it } from 'vitest';
import { tierNames, tiers } from '#contract/tiers.ts';
import { USAGE_PLAN_IDS_ENV } from '#functions/usage-plan-keys.ts';
import { UsagePlans } from '#infra/constructs/usage-plans.ts';
import { AUTHORIZATION_RATE_LIMIT, IP_RATE_LIMIT, protectStage } from '#infra/constructs/waf.ts';

/** A minimal REST API as the stack builds one: a Lambda authorizer in front of a proxy method. */
function restApi(context: Record<string, string> = {}) {
  const app = new App({ context });
  const stack = new Stack(app, 'Limits', { env: { account: '111111111111', region: 'eu-west-1' } });
  const code = lambda.Code.fromInline('exports.handler = async () => ({})');
  const fn = (id: string) =>
    new lambda.Function(stack, id, { runtime: lambda.Runtime.NODEJS_22_X, handler: 'index.handler', code });
  const authorizer = new apigateway.RequestAuthorizer(stack, 'Authorizer', {
    handler: fn('AuthorizerFn'),
    identitySources: [apigateway.IdentitySource.header('Authorization')],
  });
  const api = new apigateway.RestApi(stack, 'Api', { deployOptions: { stageName: 'api' } });
  api.root.addResource('agents').addMethod('GET', new apigateway.LambdaIntegration(fn('ListAgents')), {
    authorizer,
    authorizationType: apigateway.AuthorizationType.CUSTOM,
  });
  api.root.addResource('health').addMethod('GET', new apigateway.MockIntegration());
  return { stack, api, admin: fn('Admin') };
}

describe('usage plans per tier', () => {
  const { stack, api, admin } = restApi();
  const plans = new UsagePlans(stack, 'UsagePlans', { api, stage: api.deploymentStage });
  plans.grantKeyManagement(admin);
  const template = Template.fromStack(stack);

  it('takes API keys from the authorizer, and every authorized method needs one', () => {
    template.hasResourceProperties('AWS::ApiGateway::RestApi', { ApiKeySourceType: 'AUTHORIZER' });
    template.hasResourceProperties('AWS::ApiGateway::Method', {
      HttpMethod: 'GET',
      AuthorizationType: 'CUSTOM',
      ApiKeyRequired: true,
    });
    // A method outside the authorizer is not metered (nothing would name its key).
    template.hasResourceProperties('AWS::ApiGateway::Method', {
      AuthorizationType: 'NONE',
      ApiKeyRequired: Match.absent(),
    });
  });

  it('has one plan per tier with its throttle and daily quota, on the stage', () => {
    template.resourceCountIs('AWS::ApiGateway::UsagePlan', tierNames.length);
    for (const tier of tierNames) {
      template.hasResourceProperties('AWS::ApiGateway::UsagePlan', {
        UsagePlanName: `Limits-${tier}`,
        Throttle: { RateLimit: tiers[tier].rate, BurstLimit: tiers[tier].burst },
        Quota: { Limit: tiers[tier].dailyQuota, Period: 'DAY' },
        ApiStages: [
          {
            ApiId: { Ref: Match.stringLikeRegexp('^Api') },
            Stage: { Ref: Match.stringLikeRegexp('^ApiDeploymentStage') },
          },
        ],
      });
    }
  });

  it("hands the admin function the plans' ids and only the key paths it needs", () => {
    const fn = Object.values(template.findResources('AWS::Lambda::Function')).find((r) =>
      JSON.stringify(r).includes(USAGE_PLAN_IDS_ENV),
    );
    const env = JSON.stringify(fn?.Properties.Environment.Variables[USAGE_PLAN_IDS_ENV]);
    for (const tier of tierNames) expect(env).toContain(`\\"${tier}\\":\\"`);
    const policy = JSON.stringify(template.findResources('AWS::IAM::Policy'));
    expect(policy).toContain('::/apikeys');
    expect(policy).toContain('/keys/*');
    expect(policy).not.toMatch(/"Resource":"\*"/);
  });
});

describe('the web ACL', () => {
  const build = (context?: Record<string, string>) => {
    const { stack, api } = restApi(context);
    const waf = protectStage(stack, { stage: api.deploymentStage });
    return { waf, template: Template.fromStack(stack) };
  };

  it('is regional, with the managed groups and both rate rules answering 429', () => {
    const { template } = build();
    const acl = Object.values(template.findResources('AWS::WAFv2::WebACL'))[0]?.Properties;
    expect(acl.Scope).toBe('REGIONAL');
    expect(acl.DefaultAction).toEqual({ Allow: {} });
    const rules = Object.fromEntries(acl.Rules.map((rule: { Name: string }) => [rule.Name, rule]));
    expect(Object.keys(rules)).toEqual([
      'AWSManagedRulesCommonRuleSet',
      'AWSManagedRulesKnownBadInputsRuleSet',
      'AWSManagedRulesAmazonIpReputationList',
      'rate-per-ip',
      'rate-per-authorization',
    ]);
    expect(
      rules.AWSManagedRulesCommonRuleSet.Statement.ManagedRuleGroupStatement.RuleActionOverrides,
    ).toEqual([{ Name: 'SizeRestrictions_BODY', ActionToUse: { Count: {} } }]);
    expect(rules['rate-per-ip'].Statement.RateBasedStatement).toEqual({
      AggregateKeyType: 'IP',
      Limit: IP_RATE_LIMIT,
      EvaluationWindowSec: 300,
    });
    expect(rules['rate-per-authorization'].Statement.RateBasedStatement).toMatchObject({
      AggregateKeyType: 'CUSTOM_KEYS',
      CustomKeys: [
        { Header: { Name: 'authorization', TextTransformations: [{ Priority: 0, Type: 'NONE' }] } },
      ],
      Limit: AUTHORIZATION_RATE_LIMIT,
    });
    for (const name of ['rate-per-ip', 'rate-per-authorization']) {
      expect(rules[name].Action.Block.CustomResponse).toEqual({
        ResponseCode: 429,
        CustomResponseBodyKey: 'rate-limited',
      });
    }
    expect(JSON.parse(acl.CustomResponseBodies['rate-limited'].Content)).toMatchObject({ status: 429 });
  });

  it('is associated with the stage it was given, and logs with Authorization redacted', () => {
    const { template } = build();
    template.hasResourceProperties('AWS::WAFv2::WebACLAssociation', {
      ResourceArn: Match.objectLike({
        'Fn::Join': ['', Match.arrayWith([Match.stringLikeRegexp('/restapis/')])],
      }),
      WebACLArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^WafWebAcl'), 'Arn'] },
    });
    template.hasResourceProperties('AWS::WAFv2::LoggingConfiguration', {
      RedactedFields: [{ SingleHeader: { Name: 'authorization' } }],
      LogDestinationConfigs: [
        Match.objectLike({ 'Fn::Join': ['', Match.arrayWith([Match.stringLikeRegexp(':log-group:')])] }),
      ],
    });
    template.hasResourceProperties('AWS::Logs::LogGroup', { LogGroupName: 'aws-waf-logs-Limits' });
    const destination = JSON.stringify(
      Object.values(template.findResources('AWS::WAFv2::LoggingConfiguration'))[0]?.Properties
        .LogDestinationConfigs,
    );
    expect(destination).not.toContain(':*');
  });

  it('is left out with context waf=off', () => {
    const { waf, template } = build({ waf: 'off' });
    expect(waf).toBeUndefined();
    template.resourceCountIs('AWS::WAFv2::WebACL', 0);
    template.resourceCountIs('AWS::WAFv2::WebACLAssociation', 0);
  });
});
