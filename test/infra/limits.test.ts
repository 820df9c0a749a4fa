import { Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { describe, expect, it } from 'vitest';
import { routeList } from '#contract/routes.ts';
import { tierNames, tiers, USAGE_KEY_HEADROOM } from '#contract/tiers.ts';
import { generateToken } from '#db/queries/api-keys.ts';
import { USAGE_PLAN_IDS_ENV } from '#functions/usage-plan-keys.ts';
import { UsagePlans } from '#infra/constructs/usage-plans.ts';
import {
  AUTHORIZATION_RATE_LIMIT,
  COMMON_BODY_LABELS,
  ipRateLimit,
  PROMPT_ROUTES,
  protectStage,
} from '#infra/constructs/waf.ts';
import { MANAGED_RULE_GROUPS } from '#infra/gateway-responses.ts';
import { testApp } from './synth.ts';

const STAGE_RATE = 200;

/** A minimal REST API as the stack builds one: a Lambda authorizer in front of a proxy method. */
function restApi(context: Record<string, string> = {}) {
  const app = testApp({ context });
  const stack = new Stack(app, 'Limits', { env: { account: '111111111111', region: 'eu-west-1' } });
  const code = lambda.Code.fromInline('exports.handler = async () => ({})');
  const fn = (id: string) =>
    new lambda.Function(stack, id, { runtime: lambda.Runtime.NODEJS_22_X, handler: 'index.handler', code });
  const authorizer = new apigateway.RequestAuthorizer(stack, 'Authorizer', {
    handler: fn('AuthorizerFn'),
    identitySources: [apigateway.IdentitySource.header('Authorization')],
  });
  const api = new apigateway.RestApi(stack, 'Api', {
    deployOptions: {
      stageName: 'api',
      throttlingRateLimit: STAGE_RATE,
      throttlingBurstLimit: 2 * STAGE_RATE,
    },
  });
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

  it("has one plan per tier, each pool key throttled at the shard's ceiling and without a quota, on the stage", () => {
    template.resourceCountIs('AWS::ApiGateway::UsagePlan', tierNames.length);
    for (const tier of tierNames) {
      template.hasResourceProperties('AWS::ApiGateway::UsagePlan', {
        UsagePlanName: `Limits-${tier}`,
        Throttle: {
          RateLimit: tiers[tier].rate * USAGE_KEY_HEADROOM,
          BurstLimit: tiers[tier].burst * USAGE_KEY_HEADROOM,
        },
        // Each workspace's daily quota is the route functions': a key's quota would count its refusals.
        Quota: Match.absent(),
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
  // biome-ignore lint/suspicious/noExplicitAny: template JSON read ad hoc
  const aclOf = (template: Template): any =>
    Object.values(template.findResources('AWS::WAFv2::WebACL'))[0]?.Properties;
  // biome-ignore lint/suspicious/noExplicitAny: template JSON read ad hoc
  const rulesOf = (template: Template): Record<string, any> =>
    Object.fromEntries(aclOf(template).Rules.map((rule: { Name: string }) => [rule.Name, rule]));

  it('refuses by rate per IP, repeated and malformed Authorization, then per token, then by the managed groups', () => {
    const { template } = build();
    const acl = aclOf(template);
    expect(acl.Scope).toBe('REGIONAL');
    expect(acl.DefaultAction).toEqual({ Allow: {} });
    const ordered = [...acl.Rules].sort((a, b) => a.Priority - b.Priority).map((rule) => rule.Name);
    expect(ordered).toEqual([
      'rate-per-ip',
      'authorization-repeated',
      'token-shape',
      'rate-per-authorization',
      ...MANAGED_RULE_GROUPS,
      ...MANAGED_RULE_GROUPS.map((group) => `${group}-block`),
    ]);
  });

  it('limits one address to at most a tenth of the stage throttle', () => {
    const { template, waf } = build();
    const rate = rulesOf(template)['rate-per-ip'].Statement.RateBasedStatement;
    expect(rate).toEqual({ AggregateKeyType: 'IP', Limit: waf?.ipRateLimit, EvaluationWindowSec: 300 });
    expect(rate.Limit).toBeLessThanOrEqual(0.1 * STAGE_RATE * rate.EvaluationWindowSec);
    expect(rate.Limit).toBe(ipRateLimit(STAGE_RATE));
    expect(rulesOf(template)['rate-per-authorization'].Statement.RateBasedStatement).toMatchObject({
      AggregateKeyType: 'CUSTOM_KEYS',
      CustomKeys: [
        { Header: { Name: 'authorization', TextTransformations: [{ Priority: 0, Type: 'NONE' }] } },
      ],
      Limit: AUTHORIZATION_RATE_LIMIT,
    });
  });

  it('lets through only an Authorization of the exact shape of our tokens, and refuses a repeated one', () => {
    const rules = rulesOf(build().template);
    const shape = rules['token-shape'].Statement.NotStatement.Statement.RegexMatchStatement;
    expect(shape.FieldToMatch).toEqual({ SingleHeader: { Name: 'authorization' } });
    const pattern = new RegExp(shape.RegexString);
    const token = generateToken();
    for (const good of [`Bearer ${token}`, `bearer ${token}`, `BEARER  ${token} `])
      expect(pattern.test(good)).toBe(true);
    for (const bad of [
      '',
      token,
      `Basic ${token}`,
      `Bearer ${token.slice(0, -1)}`,
      `Bearer ${token}A`,
      `Bearer ${token.slice(0, -1)}+`,
      `Bearer vat_${token.slice(4)}`,
      `Bearer ${token},Bearer ${generateToken()}`,
    ])
      expect(pattern.test(bad)).toBe(false);
    expect(rules['authorization-repeated'].Statement.ByteMatchStatement).toMatchObject({
      FieldToMatch: { SingleHeader: { Name: 'authorization' } },
      SearchString: ',',
    });
  });

  it('counts the managed groups and blocks by their labels, the body rules not on the prompt routes', () => {
    const rules = rulesOf(build().template);
    for (const group of MANAGED_RULE_GROUPS) {
      expect(rules[group].OverrideAction).toEqual({ Count: {} });
      expect(rules[group].Statement.ManagedRuleGroupStatement).toEqual({ VendorName: 'AWS', Name: group });
    }
    const [namespace, exclusion] =
      rules['AWSManagedRulesCommonRuleSet-block'].Statement.AndStatement.Statements;
    expect(namespace.LabelMatchStatement).toEqual({
      Scope: 'NAMESPACE',
      Key: 'awswaf:managed:aws:core-rule-set:',
    });
    const [where, what] = exclusion.NotStatement.Statement.AndStatement.Statements;
    expect(
      what.OrStatement.Statements.map((s: { LabelMatchStatement: unknown }) => s.LabelMatchStatement),
    ).toEqual(COMMON_BODY_LABELS.map((key) => ({ Key: key, Scope: 'LABEL' })));
    // The routes the exclusion covers, read back from the template: method and path pattern.
    const excluded = where.OrStatement.Statements.map(
      (s: {
        AndStatement: {
          Statements: [
            { ByteMatchStatement: { SearchString: string } },
            { RegexMatchStatement: { RegexString: string } },
          ];
        };
      }) => ({
        method: s.AndStatement.Statements[0].ByteMatchStatement.SearchString,
        path: new RegExp(s.AndStatement.Statements[1].RegexMatchStatement.RegexString),
      }),
    );
    const covered = (method: string, path: string) =>
      excluded.some((e: { method: string; path: RegExp }) => e.method === method && e.path.test(path));
    for (const path of ['/v1/agents', '/agents']) expect(covered('POST', path)).toBe(true);
    expect(covered('POST', '/v1/agents/3f0c/versions')).toBe(true);
    expect(covered('PATCH', '/v1/agents/3f0c')).toBe(true);
    // Everything else keeps the body rules: another method, another route, a longer path.
    expect(covered('GET', '/v1/agents')).toBe(false);
    expect(covered('POST', '/v1/sessions')).toBe(false);
    expect(covered('POST', '/v1/agents/3f0c/publish')).toBe(false);
    expect(covered('PATCH', '/v1/agents/3f0c/versions')).toBe(false);
    for (const route of routeList) {
      const carriesPrompts = PROMPT_ROUTES.includes(route);
      expect(covered(route.method, `/v1${route.path.replace(/\{[^}]+\}/g, 'x1')}`)).toBe(carriesPrompts);
    }
    for (const group of [
      'AWSManagedRulesKnownBadInputsRuleSet',
      'AWSManagedRulesAmazonIpReputationList',
    ] as const) {
      expect(rules[`${group}-block`].Statement.LabelMatchStatement.Scope).toBe('NAMESPACE');
    }
  });

  it('answers every block with a problem naming the rule, never a bare 403', () => {
    const { template } = build();
    const acl = aclOf(template);
    const blocking = acl.Rules.filter((rule: { Action?: { Block?: unknown } }) => rule.Action?.Block);
    expect(blocking.length).toBe(acl.Rules.length - MANAGED_RULE_GROUPS.length);
    for (const rule of blocking) {
      const { ResponseCode, CustomResponseBodyKey, ResponseHeaders } = rule.Action.Block.CustomResponse;
      const body = JSON.parse(acl.CustomResponseBodies[CustomResponseBodyKey].Content);
      expect(acl.CustomResponseBodies[CustomResponseBodyKey].ContentType).toBe('APPLICATION_JSON');
      expect(body).toMatchObject({ status: ResponseCode, blockedBy: rule.Name.replace(/-block$/, '') });
      expect(body.type).toMatch(/^https:\/\/voice-agent-admin\.dev\/problems\//);
      if (ResponseCode === 429)
        expect(ResponseHeaders).toEqual([{ Name: 'retry-after', Value: expect.stringMatching(/^\d+$/) }]);
    }
    expect(JSON.parse(acl.CustomResponseBodies['token-shape'].Content).status).toBe(401);
    expect(JSON.parse(acl.CustomResponseBodies['authorization-repeated'].Content).status).toBe(400);
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
