/**
 * The API's web application firewall: a regional WAF web ACL on the REST API's stage with AWS's
 * managed rule groups (common, known bad inputs, IP reputation), a rate-based rule per client IP
 * (anonymous floods, which would otherwise cost an authorizer call each) and one keyed on the
 * Authorization header (a backstop behind the usage plans), logged with Authorization redacted.
 * The local gateway stands in for the per-IP rule with a bucket on authorizer calls
 * (infra/local/rate-limit.ts). Context `waf=off` leaves it out (previews: a web ACL costs money).
 */
import { ArnFormat, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { tiers } from '#contract/tiers.ts';

/** The context key: `-c waf=off` synthesises no web ACL. */
export const WAF_CONTEXT = 'waf';

/** WAF counts rate-based rules over this window (seconds). */
export const RATE_WINDOW_SECONDS = 300;
/** Per client IP: the highest tier's rate over the window, so one tenant's backend is never cut off by it. */
export const IP_RATE_LIMIT = tiers.pro.rate * RATE_WINDOW_SECONDS;
/** Per Authorization header: the highest tier's rate with room to spare, a backstop only. */
export const AUTHORIZATION_RATE_LIMIT = Math.ceil(tiers.pro.rate * RATE_WINDOW_SECONDS * 1.2);

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

const managed = (
  priority: number,
  name: string,
  ruleActionOverrides?: wafv2.CfnWebACL.RuleActionOverrideProperty[],
): wafv2.CfnWebACL.RuleProperty => ({
  name,
  priority,
  overrideAction: { none: {} },
  statement: { managedRuleGroupStatement: { vendorName: 'AWS', name, ruleActionOverrides } },
  visibilityConfig: visibility(name),
});

/** A block answered as our limits answer: 429 problem+json (WAF cannot set a bare Retry-After). */
const tooMany: wafv2.CfnWebACL.RuleActionProperty = {
  block: { customResponse: { responseCode: 429, customResponseBodyKey: 'rate-limited' } },
};

export class ApiWaf extends Construct {
  readonly webAcl: wafv2.CfnWebACL;

  constructor(scope: Construct, id: string, props: ApiWafProps) {
    super(scope, id);
    this.webAcl = new wafv2.CfnWebACL(this, 'WebAcl', {
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      visibilityConfig: visibility('api'),
      customResponseBodies: {
        'rate-limited': {
          contentType: 'APPLICATION_JSON',
          content: JSON.stringify({
            type: 'https://voice-agent-admin.dev/problems/rate-limited',
            title: 'Too Many Requests',
            status: 429,
            detail: 'Too many requests from this client; slow down.',
          }),
        },
      },
      rules: [
        // The common set blocks bodies over 8 KB; the API takes up to 256 KiB (contract/limits.ts)
        // and refuses larger ones itself, so that one rule only counts.
        managed(0, 'AWSManagedRulesCommonRuleSet', [
          { name: 'SizeRestrictions_BODY', actionToUse: { count: {} } },
        ]),
        managed(1, 'AWSManagedRulesKnownBadInputsRuleSet'),
        managed(2, 'AWSManagedRulesAmazonIpReputationList'),
        {
          name: 'rate-per-ip',
          priority: 3,
          action: tooMany,
          statement: {
            rateBasedStatement: {
              aggregateKeyType: 'IP',
              limit: IP_RATE_LIMIT,
              evaluationWindowSec: RATE_WINDOW_SECONDS,
            },
          },
          visibilityConfig: visibility('rate-per-ip'),
        },
        {
          name: 'rate-per-authorization',
          priority: 4,
          action: tooMany,
          statement: {
            rateBasedStatement: {
              aggregateKeyType: 'CUSTOM_KEYS',
              customKeys: [
                { header: { name: 'authorization', textTransformations: [{ priority: 0, type: 'NONE' }] } },
              ],
              limit: AUTHORIZATION_RATE_LIMIT,
              evaluationWindowSec: RATE_WINDOW_SECONDS,
            },
          },
          visibilityConfig: visibility('rate-per-authorization'),
        },
      ],
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
