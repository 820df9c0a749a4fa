import { Duration } from 'aws-cdk-lib';
import {
  Alarm,
  AlarmStatusWidget,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IMetric,
  MathExpression,
  Metric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Rule } from 'aws-cdk-lib/aws-events';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { FilterPattern, MetricFilter } from 'aws-cdk-lib/aws-logs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription, UrlSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { StageConfig } from '../stage.ts';
import type { Api } from './api.ts';
import { type Database, PROXY_BORROW_TIMEOUT_SECONDS, PROXY_MAX_CONNECTIONS_PERCENT } from './database.ts';
import { constructId } from './functions.ts';
import { DEAD_LETTER_OLDEST_ALARM_SECONDS, QUEUE_OLDEST_ALARM_SECONDS } from './webhooks.ts';

const PERIOD = Duration.minutes(5);
export const API_5XX_PERCENT = 5;
export const API_P99_LATENCY_MS = 3_000;
export const DATABASE_CPU_PERCENT = 80;
/** A function whose slowest invocation takes this share of its timeout is about to be cut off. */
export const DURATION_NEAR_TIMEOUT = 0.8;
/** Half the proxy's borrow timeout: clients are queueing for connections well before they fail. */
export const PROXY_BORROW_LATENCY_US = (PROXY_BORROW_TIMEOUT_SECONDS * 1_000_000) / 2;
/** Requests the authorizer turned away (401/403 before any integration ran) per period: a key being guessed or a client gone wrong. */
export const AUTHORIZER_DENIES_PER_PERIOD = 100;
/** A quarter of the requests answered 4xx: a client broken by a release, or a contract change. */
export const API_4XX_PERCENT = 25;
/** Requests throttled (429) per period: the stage's rate limit is too low for someone. */
export const API_429_PER_PERIOD = 50;
/** Aurora's ACUUtilization (capacity used of the maximum): sustained, it is time to raise the maximum. */
export const ACU_UTILISATION_PERCENT = 90;
/** Alarms fire at this share of a hard limit, while there is still room. */
export const NEAR_LIMIT = 0.8;

/**
 * Aurora sets max_connections from the instance memory (DBInstanceClassMemory / 9531392, at most
 * 5000); Serverless v2 sizes it for the maximum capacity, at about 2 GiB per ACU. Approximate:
 * the alarm only needs to fire well before the limit.
 */
export const approxMaxConnections = (maxAcu: number) =>
  Math.min(5000, Math.floor((maxAcu * 2 * 1024 ** 3) / 9_531_392));

/**
 * Client connections the API functions may open to the proxy: one per instance, `routes` routes
 * plus the authorizer. Undefined without reserved concurrency (nothing caps the instances).
 */
export const proxyClientCap = (config: StageConfig, functionCount: number) => {
  const { routeConcurrency, authorizerConcurrency } = config.functions;
  if (routeConcurrency === undefined || authorizerConcurrency === undefined) return undefined;
  return (functionCount - 1) * routeConcurrency + authorizerConcurrency;
};

export interface MonitoringProps {
  readonly config: StageConfig;
  readonly api: Api;
  readonly functions: ReadonlyMap<string, LambdaFunction>;
  /** The stack's own cluster; a branch preview's is the preview base's, watched there. */
  readonly database?: Database;
  /** Where a function's alarms go: beside it in its nested route stack (default: here). */
  readonly scopeOf?: (name: string) => Construct | undefined;
  /** A dashboard (default true); a branch preview has none (beyond the account's free 3, each costs). */
  readonly dashboard?: boolean;
  /** The webhook delivery queue and its dead-letter queue, where the stage has webhooks. */
  readonly webhookQueues?: { readonly queue: Queue; readonly deadLetters: Queue };
}

/** Alarms for the API, the authorizer's denials, every function, the database and the proxy, all notifying one SNS topic. */
export class Monitoring extends Construct {
  readonly topic: Topic;
  readonly alarms: Alarm[] = [];
  readonly dashboard?: Dashboard;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    const { config, api, functions, database } = props;
    super(scope, id);
    this.topic = new Topic(this, 'AlarmTopic', {
      displayName: `${config.stackName} alarms`,
      enforceSSL: true,
    });
    // Required for prod (stageConfig refuses it without one): alarms nobody receives are no alarms.
    if (config.alarmEmail) this.topic.addSubscription(new EmailSubscription(config.alarmEmail));
    // A pager: any HTTPS endpoint that confirms SNS subscriptions (docs/deploying.md).
    if (config.alarmHttpsUrl) this.topic.addSubscription(new UrlSubscription(config.alarmHttpsUrl));

    if (props.webhookQueues) this.webhookQueueAlarms(props.webhookQueues);

    const requests = api.restApi.metricCount({ period: PERIOD, statistic: 'Sum' });
    const serverErrors = api.restApi.metricServerError({ period: PERIOD, statistic: 'Sum' });
    this.alarm('Api5xxRate', {
      metric: new MathExpression({
        expression: 'IF(requests > 0, 100 * errors / requests, 0)',
        usingMetrics: { requests, errors: serverErrors },
        period: PERIOD,
        label: 'API 5xx %',
      }),
      threshold: API_5XX_PERCENT,
      description: `More than ${API_5XX_PERCENT}% of API requests answered 5xx`,
      evaluationPeriods: 3,
    });
    const clientErrors = api.restApi.metricClientError({ period: PERIOD, statistic: 'Sum' });
    this.alarm('Api4xxRate', {
      metric: new MathExpression({
        expression: 'IF(requests > 0, 100 * errors / requests, 0)',
        usingMetrics: { requests, errors: clientErrors },
        period: PERIOD,
        label: 'API 4xx %',
      }),
      threshold: API_4XX_PERCENT,
      description: `More than ${API_4XX_PERCENT}% of API requests answered 4xx`,
      evaluationPeriods: 3,
    });
    const throttled = new MetricFilter(this, 'ThrottledFilter', {
      logGroup: api.accessLogs,
      metricNamespace: `${config.stackName}`,
      metricName: 'Throttled',
      filterPattern: FilterPattern.stringValue('$.status', '=', '429'),
      metricValue: '1',
    });
    this.alarm('Api429', {
      metric: throttled.metric({ period: PERIOD, statistic: 'Sum' }),
      threshold: API_429_PER_PERIOD,
      description: `More than ${API_429_PER_PERIOD} requests throttled (429) in 5 minutes`,
    });
    this.alarm('ApiLatencyP99', {
      metric: api.restApi.metricLatency({ period: PERIOD, statistic: 'p99' }),
      threshold: API_P99_LATENCY_MS,
      description: `API p99 latency above ${API_P99_LATENCY_MS} ms`,
      evaluationPeriods: 3,
    });

    // API Gateway's own 401/403 (authorizer denied, or no Authorization header): no integration ran.
    const denies = new MetricFilter(this, 'AuthorizerDeniesFilter', {
      logGroup: api.accessLogs,
      metricNamespace: `${config.stackName}`,
      metricName: 'AuthorizerDenies',
      filterPattern: FilterPattern.all(
        FilterPattern.any(
          FilterPattern.stringValue('$.status', '=', '401'),
          FilterPattern.stringValue('$.status', '=', '403'),
        ),
        FilterPattern.stringValue('$.integrationStatus', '=', '-'),
      ),
      metricValue: '1',
    });
    this.alarm('AuthorizerDenies', {
      metric: denies.metric({ period: PERIOD, statistic: 'Sum' }),
      threshold: AUTHORIZER_DENIES_PER_PERIOD,
      description: `More than ${AUTHORIZER_DENIES_PER_PERIOD} requests denied by the authorizer in 5 minutes`,
    });

    for (const [name, fn] of functions) {
      const prefix = constructId(name);
      const timeoutMs = fn.timeout?.toMilliseconds() ?? 3_000;
      const where = props.scopeOf?.(name);
      this.alarm(`${prefix}DurationNearTimeout`, {
        metric: fn.metricDuration({ period: PERIOD, statistic: 'Maximum' }),
        threshold: Math.floor(timeoutMs * DURATION_NEAR_TIMEOUT),
        description: `${name}: an invocation took over ${DURATION_NEAR_TIMEOUT * 100}% of its ${timeoutMs} ms timeout`,
        where,
      });
      this.alarm(`${prefix}Errors`, {
        metric: fn.metricErrors({ period: PERIOD, statistic: 'Sum' }),
        threshold: 0,
        description: `${name}: invocations failed (uncaught errors or timeouts)`,
        where,
      });
      this.alarm(`${prefix}Throttles`, {
        metric: fn.metricThrottles({ period: PERIOD, statistic: 'Sum' }),
        threshold: 0,
        description: `${name}: invocations throttled`,
        where,
      });
    }

    if (database) this.databaseAlarms(config, database, functions.size);
    if (props.dashboard === false) return;
    this.dashboard = new Dashboard(this, 'Dashboard', { dashboardName: config.stackName });
    this.addDashboard(this.dashboard, api, functions, database);
  }

  /** The stack's own cluster (and proxy, and its master secret's rotation); a branch preview has none of them. */
  private databaseAlarms(config: StageConfig, database: Database, functionCount: number) {
    const maxConnections = approxMaxConnections(config.database.maxCapacity);
    // Behind the proxy the connections stop at its cap, a share of max_connections: alarm below that cap.
    const connectionCap = database.proxy
      ? Math.floor((maxConnections * PROXY_MAX_CONNECTIONS_PERCENT) / 100)
      : maxConnections;
    this.alarm('DatabaseConnections', {
      metric: database.cluster.metricDatabaseConnections({ period: PERIOD, statistic: 'Maximum' }),
      threshold: Math.floor(connectionCap * NEAR_LIMIT),
      description: `Database connections above ${NEAR_LIMIT * 100}% of ~${connectionCap}${database.proxy ? " (the proxy's cap)" : ''}`,
    });
    this.alarm('DatabaseAcuUtilisation', {
      metric: database.cluster.metric('ACUUtilization', { period: PERIOD, statistic: 'Average' }),
      threshold: ACU_UTILISATION_PERCENT,
      description: `Aurora used over ${ACU_UTILISATION_PERCENT}% of its ${config.database.maxCapacity} ACU maximum`,
      evaluationPeriods: 3,
    });
    const maxAcu = config.database.maxCapacity;
    this.alarm('DatabaseAtMaxCapacity', {
      metric: database.cluster.metric('ServerlessDatabaseCapacity', { period: PERIOD, statistic: 'Maximum' }),
      threshold: maxAcu,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      description: `Aurora at its maximum of ${maxAcu} ACU: it cannot scale further`,
      evaluationPeriods: 3,
    });
    if (database.proxy) {
      this.alarm('ProxyBorrowLatency', {
        metric: new Metric({
          namespace: 'AWS/RDS',
          metricName: 'DatabaseConnectionsBorrowLatency',
          dimensionsMap: { ProxyName: database.proxy.dbProxyName },
          period: PERIOD,
          statistic: 'Maximum',
        }),
        threshold: PROXY_BORROW_LATENCY_US,
        description: `RDS Proxy took over ${PROXY_BORROW_LATENCY_US / 1_000_000} s to lend a connection (borrow timeout ${PROXY_BORROW_TIMEOUT_SECONDS} s)`,
      });
      // Each function instance holds one client connection: the reserved concurrency is the client cap.
      const clientCap = proxyClientCap(config, functionCount);
      if (clientCap !== undefined)
        this.alarm('ProxyClientConnections', {
          metric: new Metric({
            namespace: 'AWS/RDS',
            metricName: 'ClientConnections',
            dimensionsMap: { ProxyName: database.proxy.dbProxyName },
            period: PERIOD,
            statistic: 'Maximum',
          }),
          threshold: Math.floor(clientCap * NEAR_LIMIT),
          description: `RDS Proxy client connections above ${NEAR_LIMIT * 100}% of the ${clientCap} the API functions may open`,
        });
    }
    // Secrets Manager reports a failed rotation (RDS's of the master secret included) as an event
    // through CloudTrail: count them.
    const rotationFailed = new Rule(this, 'RotationFailedRule', {
      description: `${config.stackName}: a secret rotation failed`,
      eventPattern: {
        source: ['aws.secretsmanager'],
        detailType: ['AWS Service Event via CloudTrail'],
        detail: { eventName: ['RotationFailed', 'RotationAbandoned'] },
      },
    });
    this.alarm('SecretRotationFailed', {
      metric: new Metric({
        namespace: 'AWS/Events',
        metricName: 'TriggeredRules',
        dimensionsMap: { RuleName: rotationFailed.ruleName },
        period: PERIOD,
        statistic: 'Sum',
      }),
      threshold: 0,
      description: 'A Secrets Manager rotation failed: the secret may no longer match the database',
    });
    this.alarm('DatabaseCpu', {
      metric: database.cluster.metricCPUUtilization({ period: PERIOD, statistic: 'Average' }),
      threshold: DATABASE_CPU_PERCENT,
      description: `Database CPU above ${DATABASE_CPU_PERCENT}%`,
      evaluationPeriods: 3,
    });
  }

  /** One page per stage: traffic, errors, latency, each function, the database, and every alarm's state. */
  private addDashboard(
    dashboard: Dashboard,
    api: Api,
    functions: ReadonlyMap<string, LambdaFunction>,
    database?: Database,
  ) {
    const graph = (title: string, metrics: IMetric[]) => new GraphWidget({ title, left: metrics, width: 12 });
    const perFunction = (metric: (fn: LambdaFunction) => IMetric) => [...functions.values()].map(metric);
    dashboard.addWidgets(
      new AlarmStatusWidget({ title: 'Alarms', alarms: this.alarms, width: 24 }),
      graph('API requests, 4xx, 5xx', [
        api.restApi.metricCount({ period: PERIOD }),
        api.restApi.metricClientError({ period: PERIOD }),
        api.restApi.metricServerError({ period: PERIOD }),
      ]),
      graph('API latency p50 / p99', [
        api.restApi.metricLatency({ period: PERIOD, statistic: 'p50' }),
        api.restApi.metricLatency({ period: PERIOD, statistic: 'p99' }),
      ]),
      graph(
        'Function errors',
        perFunction((fn) => fn.metricErrors({ period: PERIOD })),
      ),
      graph(
        'Function duration p99',
        perFunction((fn) => fn.metricDuration({ period: PERIOD, statistic: 'p99' })),
      ),
    );
    // A branch preview's database lives on the preview base's cluster, which no branch dashboard graphs.
    if (!database) return;
    dashboard.addWidgets(
      graph('Database ACU and utilisation', [
        database.cluster.metric('ServerlessDatabaseCapacity', { period: PERIOD, statistic: 'Maximum' }),
        database.cluster.metric('ACUUtilization', { period: PERIOD }),
      ]),
      graph('Database connections and CPU', [
        database.cluster.metricDatabaseConnections({ period: PERIOD, statistic: 'Maximum' }),
        database.cluster.metricCPUUtilization({ period: PERIOD }),
      ]),
    );
  }

  /**
   * Webhook deliveries waiting longer than a retry's delay explains (the delivery function failing
   * or throttled), and any message in the dead-letter queue: its delivery is in the database, but
   * something failed it MAX_RECEIVES times.
   */
  private webhookQueueAlarms({ queue, deadLetters }: NonNullable<MonitoringProps['webhookQueues']>) {
    const minutes = (seconds: number) => Math.round(seconds / 60);
    this.alarm('WebhookQueueOldest', {
      metric: queue.metricApproximateAgeOfOldestMessage({ period: PERIOD, statistic: 'Maximum' }),
      threshold: QUEUE_OLDEST_ALARM_SECONDS,
      description: `A webhook delivery message waited over ${minutes(QUEUE_OLDEST_ALARM_SECONDS)} minutes`,
    });
    this.alarm('WebhookDeadLettersOldest', {
      metric: deadLetters.metricApproximateAgeOfOldestMessage({ period: PERIOD, statistic: 'Maximum' }),
      threshold: DEAD_LETTER_OLDEST_ALARM_SECONDS,
      description: `A webhook dead letter has been waiting over ${minutes(DEAD_LETTER_OLDEST_ALARM_SECONDS) / 60} hours`,
    });
    this.alarm('WebhookDeadLetters', {
      metric: deadLetters.metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: 'Maximum' }),
      threshold: 0,
      description: 'Webhook delivery messages reached the dead-letter queue',
    });
  }

  /** Breaching for 2 of `evaluationPeriods` periods; no data (idle, paused) is not a breach. */
  private alarm(
    id: string,
    props: {
      metric: IMetric;
      threshold: number;
      description: string;
      evaluationPeriods?: number;
      comparisonOperator?: ComparisonOperator;
      where?: Construct;
    },
  ) {
    const evaluationPeriods = props.evaluationPeriods ?? 1;
    const alarm = new Alarm(props.where ?? this, id, {
      metric: props.metric,
      threshold: props.threshold,
      alarmDescription: props.description,
      comparisonOperator: props.comparisonOperator ?? ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods,
      datapointsToAlarm: Math.min(2, evaluationPeriods),
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    const action = new SnsAction(this.topic);
    alarm.addAlarmAction(action);
    alarm.addOkAction(action);
    this.alarms.push(alarm);
    return alarm;
  }
}
