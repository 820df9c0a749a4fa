/**
 * The API's web application firewall: a regional WAF web ACL on the REST API's stage, evaluated
 * before API Gateway calls the authorizer. In order: a per-IP rate far below the stage's throttle;
 * a repeated `Authorization`; an `Authorization` missing or not the exact shape of our tokens; a
 * per-token rate (a backstop behind the usage plans); then AWS's managed rule groups, counted and
 * blocked by their labels so each block names its group, the common set's body rules left out on
 * the routes that carry prompts and descriptions. Every block answers a problem naming its rule
 * (infra/gateway-responses.ts `edgeAnswers`); logged with Authorization redacted. The local
 * gateway plays the same rules (infra/local/edge.ts). Context `waf=off` leaves it out (previews:
 * a web ACL costs money).
 */
import { ArnFormat, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { type Route, routes } from '#contract/routes.ts';
import { AUTHORIZATION_PATTERN } from '#functions/http/bearer.ts';
import { type EdgeAnswer, type EdgeRule, edgeAnswers, MANAGED_RULE_GROUPS } from '../gateway-responses.ts';
import { API_STAGE_NAME } from './api.ts';
import { AUTHORIZATION_RATE_LIMIT, ipRateLimit, RATE_WINDOW_SECONDS } from './waf-numbers.ts';

/** The context key: `-c waf=off` synthesises no web ACL. */
export const WAF_CONTEXT = 'waf';

export {
  AUTHORIZATION_RATE_LIMIT,
  IP_SHARE_OF_STAGE,
  ipRateLimit,
  RATE_WINDOW_SECONDS,
} from './waf-numbers.ts';

/**
 * The routes whose bodies carry system prompts and descriptions: free text that quotes HTML, code
 * and URLs as a matter of course, which the common rule set's body rules (XSS, RFI, LFI, SSRF,
 * size) would block. The API validates these bodies itself and never renders them (docs/security.md).
 */
export const PROMPT_ROUTES: readonly Route[] = [routes.createAgent, routes.createVersion, routes.updateAgent];

/** The common rule set's body rules, by label (they label what they match, blocked or counted). */
export const COMMON_BODY_LABELS = [
  'SizeRestrictions_Body',
  'CrossSiteScripting_Body',
  'GenericRFI_Body',
  'GenericLFI_Body',
  'EC2MetaDataSSRF_Body',
].map((name) => `awswaf:managed:aws:core-rule-set:${name}`);

/** Each managed group's label namespace. */
const NAMESPACES: Record<(typeof MANAGED_RULE_GROUPS)[number], string> = {
  AWSManagedRulesAmazonIpReputationList: 'awswaf:managed:aws:amazon-ip-list:',
  AWSManagedRulesKnownBadInputsRuleSet: 'awswaf:managed:aws:known-bad-inputs:',
  AWSManagedRulesCommonRuleSet: 'awswaf:managed:aws:core-rule-set:',
};

/** A route's path as WAF sees it: on the execute-api host after the stage, on a custom domain without. */
export const pathPattern = (route: Route) =>
  `^(/${API_STAGE_NAME})?${route.path.replace(/\{[^}]+\}/g, '[^/]+')}/?$`;

export interface ApiWafProps {
  stage: apigateway.Stage;
  /** Log retention; default one month. */
  logRetention?: logs.RetentionDays;
  removalPolicy?: RemovalPolicy;
}

const visibility = (metricName: string): wafv2.CfnWebACL.VisibilityConfigProperty => ({
  cloudWatchMetricsEnabled: true,
  metricName,
  sampledRequestsEnabled: true,
});

const block = (rule: EdgeRule): wafv2.CfnWebACL.RuleActionProperty => {
  const answer: EdgeAnswer = edgeAnswers[rule];
  const headers = Object.entries(answer.headers ?? {}).map(([name, value]) => ({ name, value }));
  return {
    block: {
      customResponse: {
        responseCode: answer.statusCode,
        customResponseBodyKey: rule,
        ...(headers.length > 0 ? { responseHeaders: headers } : {}),
      },
    },
  };
};

const authorizationHeader = { singleHeader: { Name: 'authorization' } };
const none = [{ priority: 0, type: 'NONE' }];
const not = (statement: wafv2.CfnWebACL.StatementProperty) => ({ notStatement: { statement } });
const label = (key: string, scope: 'LABEL' | 'NAMESPACE' = 'LABEL') => ({
  labelMatchStatement: { key, scope },
});
const any = (statements: wafv2.CfnWebACL.StatementProperty[]): wafv2.CfnWebACL.StatementProperty =>
  statements.length === 1
    ? (statements[0] as wafv2.CfnWebACL.StatementProperty)
    : { orStatement: { statements } };

/** A request for one of `PROMPT_ROUTES`: its method, and its path by the route table. */
const promptRoute = any(
  PROMPT_ROUTES.map((route) => ({
    andStatement: {
      statements: [
        {
          byteMatchStatement: {
            fieldToMatch: { method: {} },
            positionalConstraint: 'EXACTLY',
            searchString: route.method,
            textTransformations: none,
          },
        },
        {
          regexMatchStatement: {
            fieldToMatch: { uriPath: {} },
            regexString: pathPattern(route),
            textTransformations: none,
          },
        },
      ],
    },
  })),
);

/** The stage's steady throttle, as the Api construct set it on every method. */
function stageRateOf(stage: apigateway.Stage): number {
  const settings = (stage.node.defaultChild as apigateway.CfnStage).methodSettings;
  const all = (Array.isArray(settings) ? settings : []) as apigateway.CfnStage.MethodSettingProperty[];
  const rate = all.find((s) => s.throttlingRateLimit !== undefined)?.throttlingRateLimit;
  if (typeof rate !== 'number')
    throw new Error('the stage has no throttle: the per-IP limit is a share of it');
  return rate;
}

export class ApiWaf extends Construct {
  readonly webAcl: wafv2.CfnWebACL;
  /** Requests one address may send over RATE_WINDOW_SECONDS. */
  readonly ipRateLimit: number;

  constructor(scope: Construct, id: string, props: ApiWafProps) {
    super(scope, id);
    this.ipRateLimit = ipRateLimit(stageRateOf(props.stage));
    const rules: wafv2.CfnWebACL.RuleProperty[] = [
      {
        name: 'rate-per-ip',
        action: block('rate-per-ip'),
        statement: {
          rateBasedStatement: {
            aggregateKeyType: 'IP',
            limit: this.ipRateLimit,
            evaluationWindowSec: RATE_WINDOW_SECONDS,
          },
        },
      },
      {
        // WAF has no count of one header's occurrences; if it joins repeated values (as HTTP allows,
        // with a comma), this names them. The function refuses them either way (functions/http/route.ts).
        name: 'authorization-repeated',
        action: block('authorization-repeated'),
        statement: {
          byteMatchStatement: {
            fieldToMatch: authorizationHeader,
            positionalConstraint: 'CONTAINS',
            searchString: ',',
            textTransformations: none,
          },
        },
      },
      {
        // Missing (no value to match) or anything but `Bearer vak_…` never reaches the authorizer.
        name: 'token-shape',
        action: block('token-shape'),
        statement: not({
          regexMatchStatement: {
            fieldToMatch: authorizationHeader,
            regexString: AUTHORIZATION_PATTERN,
            textTransformations: none,
          },
        }),
      },
      {
        name: 'rate-per-authorization',
        action: block('rate-per-authorization'),
        statement: {
          rateBasedStatement: {
            aggregateKeyType: 'CUSTOM_KEYS',
            customKeys: [{ header: { name: 'authorization', textTransformations: none } }],
            limit: AUTHORIZATION_RATE_LIMIT,
            evaluationWindowSec: RATE_WINDOW_SECONDS,
          },
        },
      },
      // The groups only count (and label); the rules after them block, each with its own answer.
      ...MANAGED_RULE_GROUPS.map((group) => ({
        name: group,
        overrideAction: { count: {} },
        statement: { managedRuleGroupStatement: { vendorName: 'AWS', name: group } },
      })),
      ...MANAGED_RULE_GROUPS.map((group) => ({
        name: `${group}-block`,
        action: block(group),
        statement:
          group === 'AWSManagedRulesCommonRuleSet'
            ? {
                // Everywhere, except a body rule's match on a prompt route.
                andStatement: {
                  statements: [
                    label(NAMESPACES[group], 'NAMESPACE'),
                    not({
                      andStatement: {
                        statements: [promptRoute, any(COMMON_BODY_LABELS.map((l) => label(l)))],
                      },
                    }),
                  ],
                },
              }
            : label(NAMESPACES[group], 'NAMESPACE'),
      })),
    ].map((rule, priority) => ({ ...rule, priority, visibilityConfig: visibility(rule.name) }));

    this.webAcl = new wafv2.CfnWebACL(this, 'WebAcl', {
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      visibilityConfig: visibility('api'),
      customResponseBodies: Object.fromEntries(
        Object.entries(edgeAnswers).map(([key, answer]) => [
          key,
          { contentType: 'APPLICATION_JSON', content: JSON.stringify(answer.body) },
        ]),
      ),
      rules,
    });

    // WAF only logs to a log group whose name starts with aws-waf-logs-.
    const logGroup = new logs.LogGroup(this, 'Logs', {
      logGroupName: `aws-waf-logs-${Stack.of(this).stackName}`,
      retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
    });
    new wafv2.CfnLoggingConfiguration(this, 'Logging', {
      resourceArn: this.webAcl.attrArn,
      // The log group's ARN without the `:*` that CloudFormation's Arn attribute ends in: WAF refuses it.
      logDestinationConfigs: [
        Stack.of(this).formatArn({
          service: 'logs',
          resource: 'log-group',
          resourceName: logGroup.logGroupName,
          arnFormat: ArnFormat.COLON_RESOURCE_NAME,
        }),
      ],
      // A bearer token in a log is a leaked key.
      redactedFields: [{ singleHeader: { Name: 'authorization' } }],
    });
    new wafv2.CfnWebACLAssociation(this, 'Association', {
      resourceArn: props.stage.stageArn,
      webAclArn: this.webAcl.attrArn,
    });
  }
}

/**
 * What the stack calls with the REST API's stage: the web ACL, or undefined when context
 * `waf=off` turns it off. Without the context it is on where `onByDefault` (durable stages) and
 * off elsewhere: a web ACL costs a fixed monthly fee per preview (`-c waf=on` rehearses it).
 */
export function protectStage(scope: Construct, props: ApiWafProps, onByDefault = true): ApiWaf | undefined {
  const setting = scope.node.tryGetContext(WAF_CONTEXT) ?? (onByDefault ? 'on' : 'off');
  if (String(setting) === 'off') return undefined;
  return new ApiWaf(scope, 'Waf', props);
}
