import { Duration } from 'aws-cdk-lib';
import {
  Alarm,
  ComparisonOperator,
  type IMetric,
  MathExpression,
  Metric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { FilterPattern, MetricFilter } from 'aws-cdk-lib/aws-logs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import type { StageConfig } from '../stage.ts';
import type { Api } from './api.ts';
import { type Database, PROXY_BORROW_TIMEOUT_SECONDS } from './database.ts';
import { constructId } from './functions.ts';

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

/**
 * Aurora sets max_connections from the instance memory (DBInstanceClassMemory / 9531392, at most
 * 5000); Serverless v2 sizes it for the maximum capacity, at about 2 GiB per ACU. Approximate:
 * the alarm only needs to fire well before the limit.
 */
export const approxMaxConnections = (maxAcu: number) =>
  Math.min(5000, Math.floor((maxAcu * 2 * 1024 ** 3) / 9_531_392));

export interface MonitoringProps {
  readonly config: StageConfig;
  readonly api: Api;
  readonly functions: ReadonlyMap<string, NodejsFunction>;
  /** The stack's own cluster; a branch preview's is the preview base's, watched there. */
  readonly database?: Database;
}

/** Alarms for the API, the authorizer's denials, every function, the database and the proxy, all notifying one SNS topic. */
export class Monitoring extends Construct {
  readonly topic: Topic;
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, { config, api, functions, database }: MonitoringProps) {
    super(scope, id);
    this.topic = new Topic(this, 'AlarmTopic', {
      displayName: `${config.stackName} alarms`,
      enforceSSL: true,
    });
    // Required for prod (stageConfig refuses it without one): alarms nobody receives are no alarms.
    if (config.alarmEmail) this.topic.addSubscription(new EmailSubscription(config.alarmEmail));

    const requests = api.httpApi.metricCount({ period: PERIOD, statistic: 'Sum' });
    const serverErrors = api.httpApi.metricServerError({ period: PERIOD, statistic: 'Sum' });
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
    this.alarm('ApiLatencyP99', {
      metric: api.httpApi.metricLatency({ period: PERIOD, statistic: 'p99' }),
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
      this.alarm(`${prefix}DurationNearTimeout`, {
        metric: fn.metricDuration({ period: PERIOD, statistic: 'Maximum' }),
        threshold: Math.floor(timeoutMs * DURATION_NEAR_TIMEOUT),
        description: `${name}: an invocation took over ${DURATION_NEAR_TIMEOUT * 100}% of its ${timeoutMs} ms timeout`,
      });
      this.alarm(`${prefix}Errors`, {
        metric: fn.metricErrors({ period: PERIOD, statistic: 'Sum' }),
        threshold: 0,
        description: `${name}: invocations failed (uncaught errors or timeouts)`,
      });
      this.alarm(`${prefix}Throttles`, {
        metric: fn.metricThrottles({ period: PERIOD, statistic: 'Sum' }),
        threshold: 0,
        description: `${name}: invocations throttled`,
      });
    }

    if (database) this.databaseAlarms(config, database);
  }

  private databaseAlarms(config: StageConfig, database: Database) {
    const maxConnections = approxMaxConnections(config.database.maxCapacity);
    this.alarm('DatabaseConnections', {
      metric: database.cluster.metricDatabaseConnections({ period: PERIOD, statistic: 'Maximum' }),
      threshold: Math.floor(maxConnections * 0.8),
      description: `Database connections above 80% of ~${maxConnections}`,
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
    }
    this.alarm('DatabaseCpu', {
      metric: database.cluster.metricCPUUtilization({ period: PERIOD, statistic: 'Average' }),
      threshold: DATABASE_CPU_PERCENT,
      description: `Database CPU above ${DATABASE_CPU_PERCENT}%`,
      evaluationPeriods: 3,
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
    },
  ) {
    const evaluationPeriods = props.evaluationPeriods ?? 1;
    const alarm = new Alarm(this, id, {
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
  }
}
