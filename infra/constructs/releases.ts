import { Duration, Stack, Validations } from 'aws-cdk-lib';
import {
  Alarm,
  ComparisonOperator,
  type IMetric,
  MathExpression,
  Metric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { LambdaApplication, LambdaDeploymentConfig, LambdaDeploymentGroup } from 'aws-cdk-lib/aws-codedeploy';
import { ManagedPolicy, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  type Alias,
  type CfnFunction,
  Function as LambdaFunction,
  LoggingFormat,
} from 'aws-cdk-lib/aws-lambda';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { authorizer } from '#contract/routes.ts';
import { RELEASE_METRICS } from '#functions/http/release-metrics.ts';
import type { StageConfig } from '../stage.ts';
import { AUTHORIZER_TIMEOUT, constructId } from './functions.ts';
import { ENTRY_METADATA, nodeFunctionProps } from './lambda.ts';
import { API_P99_LATENCY_MS, DURATION_NEAR_TIMEOUT } from './monitoring.ts';

export const PRE_TRAFFIC_ENTRY = 'functions/pre-traffic.ts';

export interface ReleasesProps {
  readonly config: StageConfig;
  /** Function name (route name, `authorizer`) → its `live` alias. */
  readonly aliases: ReadonlyMap<string, Alias>;
}

/** A minute: the canary lasts five, and a rollback should come within the first two. */
export const RELEASE_ALARM_PERIOD = Duration.minutes(1);

/**
 * Every API-invoked function (routes and authorizer) is released by CodeDeploy: a deploy publishes
 * a new version, the pre-traffic hook (functions/pre-traffic.ts) probes it, then the `live` alias
 * moves to it, on prod 10 % for 5 minutes first. A one-minute alarm on the new version alone in
 * the meantime moves the alias back, as does a failed deployment or a failed probe: its 5xx
 * answers (which the handlers write as embedded metrics, functions/http/release-metrics.ts) or
 * crashes, and its latency.
 */
export class Releases extends Construct {
  readonly application: LambdaApplication;
  readonly preTraffic: LambdaFunction;
  readonly groups = new Map<string, LambdaDeploymentGroup>();
  /** Each function's rollback alarms, on the version being released. */
  readonly alarms = new Map<string, Alarm[]>();

  constructor(scope: Construct, id: string, { config, aliases }: ReleasesProps) {
    super(scope, id);
    this.application = new LambdaApplication(this, 'Application');
    // Outside the VPC: it only calls the CodeDeploy and Lambda APIs (the isolated subnets reach neither).
    this.preTraffic = new LambdaFunction(this, 'PreTraffic', {
      ...nodeFunctionProps(PRE_TRAFFIC_ENTRY),
      memorySize: 256,
      timeout: Duration.minutes(2),
      description: 'CodeDeploy pre-traffic hook: probes each new API function version before it gets traffic',
      loggingFormat: LoggingFormat.JSON,
      logGroup: new LogGroup(this, 'PreTrafficLogs', {
        retention: config.logRetention,
        removalPolicy: config.removalPolicy,
      }),
    });
    (this.preTraffic.node.defaultChild as CfnFunction).addMetadata(ENTRY_METADATA, PRE_TRAFFIC_ENTRY);
    const deploymentConfig =
      config.release === 'canary'
        ? LambdaDeploymentConfig.CANARY_10PERCENT_5MINUTES
        : LambdaDeploymentConfig.ALL_AT_ONCE;
    // One service role for every group (CodeDeploy's own managed policy for Lambda deployments).
    const role = new Role(this, 'DeployRole', {
      assumedBy: new ServicePrincipal('codedeploy.amazonaws.com'),
      managedPolicies: [
        ManagedPolicy.fromAwsManagedPolicyName('service-role/AWSCodeDeployRoleForLambdaLimited'),
      ],
    });
    for (const [name, alias] of aliases) {
      const alarms = this.versionAlarms(name, alias);
      this.alarms.set(name, alarms);
      // The alarms watch the new version before CodeDeploy moves any traffic to it.
      alias.node.addDependency(...alarms);
      const group = new LambdaDeploymentGroup(this, constructId(name), {
        application: this.application,
        alias,
        deploymentConfig,
        alarms,
        preHook: this.preTraffic,
        role,
      });
      // The hook invokes the version being released (the function and any of its versions).
      alias.version.lambda.grantInvoke(this.preTraffic);
      this.groups.set(name, group);
    }
    const stack = Stack.of(this);
    // The service authorization reference lists no resource type for these actions: IAM matches
    // them on `*` only (a deployment-group ARN would never match; infra/aws-calls.ts).
    this.preTraffic.addToRolePolicy(
      new PolicyStatement({
        sid: 'ReadTargetsReportStatus',
        actions: [
          'codedeploy:GetDeploymentTarget',
          'codedeploy:ListDeploymentTargets',
          'codedeploy:PutLifecycleEventHookExecutionStatus',
        ],
        resources: ['*'],
      }),
    );

    const versionsOf = (fn: { node: { defaultChild?: unknown } }) =>
      `AwsSolutions-IAM5[Resource::<${stack.getLogicalId(fn.node.defaultChild as CfnFunction)}.Arn>:*]`;
    Validations.of(this).acknowledge(
      ...[...aliases.values()].map((alias) => ({
        id: versionsOf(alias.version.lambda),
        reason:
          'The hook invokes the version being released: a version ARN is the function ARN plus its number',
      })),
      {
        id: versionsOf(this.preTraffic),
        reason: 'CodeDeploy invokes the hook (CDK grants the function and its versions)',
      },
      {
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'CodeDeploy target reads and hook status take no resource (service authorization reference): * only',
      },
      {
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSCodeDeployRoleForLambdaLimited]',
        reason: "CodeDeploy's own policy for Lambda deployments: it may only shift aliases and invoke hooks",
      },
      {
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        reason: 'AWS-managed log writes for the pre-traffic hook',
      },
      {
        id: 'AwsSolutions-L1',
        reason: 'Node.js 22 on purpose: the version the code is written and tested for (docs/decisions.md)',
      },
    );
  }

  /**
   * The released version's failures (5xx answers and crashes) and latency, a minute at a time.
   * The authorizer answers no HTTP status: its crashes and Lambda's duration of that version.
   */
  private versionAlarms(name: string, alias: Alias): Alarm[] {
    const fn = alias.version.lambda;
    const version = alias.version.version;
    const period = RELEASE_ALARM_PERIOD;
    const executed = {
      FunctionName: fn.functionName,
      Resource: `${fn.functionName}:${alias.aliasName}`,
      ExecutedVersion: version,
    };
    const lambdaMetric = (metricName: string, statistic: string) =>
      new Metric({ namespace: 'AWS/Lambda', metricName, dimensionsMap: executed, statistic, period });
    const emitted = (metricName: string, statistic: string) =>
      new Metric({
        namespace: RELEASE_METRICS.namespace,
        metricName,
        dimensionsMap: { FunctionName: fn.functionName, Version: version },
        statistic,
        period,
      });
    const answers = name !== authorizer.name;
    const alarm = (id: string, metric: IMetric, threshold: number, description: string, periods: number) =>
      new Alarm(this, `${constructId(name)}${id}`, {
        metric,
        threshold,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: periods,
        datapointsToAlarm: periods,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        alarmDescription: `${name}, the version being released: ${description}`,
      });
    const crashes = lambdaMetric('Errors', 'Sum');
    const failures = answers
      ? new MathExpression({
          expression: 'FILL(served5xx, 0) + FILL(crashed, 0)',
          usingMetrics: { served5xx: emitted(RELEASE_METRICS.serverErrors, 'Sum'), crashed: crashes },
          period,
          label: `${name} 5xx answers and crashes`,
        })
      : crashes;
    const latencyLimit = answers
      ? API_P99_LATENCY_MS
      : Math.floor(AUTHORIZER_TIMEOUT.toMilliseconds() * DURATION_NEAR_TIMEOUT);
    return [
      alarm('VersionFailures', failures, 0, answers ? 'answered 5xx or crashed' : 'crashed', 1),
      alarm(
        'VersionLatency',
        answers ? emitted(RELEASE_METRICS.latency, 'p99') : lambdaMetric('Duration', 'p99'),
        latencyLimit,
        `p99 latency above ${latencyLimit} ms two minutes running`,
        2,
      ),
    ];
  }
}
