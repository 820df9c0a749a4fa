import { Duration } from 'aws-cdk-lib';
import { Rule, RuleTargetInput, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { EVENT_RETENTION_DAYS, SESSION_STALE_AFTER_SECONDS } from '#contract/limits.ts';

/**
 * How often the sweep runs: a stale session is completed at most this long after its limit (and
 * published events past the retention window are purged, in bounded batches, by the same run).
 */
export const SWEEP_EVERY = Duration.minutes(1);

/**
 * How often a durable stage's pool of usage keys is reconciled: a key whose creation or placement
 * failed is back in its plan at most about this long after (its workspaces answered 503 meanwhile).
 */
export const USAGE_KEYS_EVERY = Duration.minutes(5);

/** How often the outbox relay runs: an event reaches the bus at most about this long after its commit. */
export const RELAY_EVERY = Duration.minutes(1);

export interface SchedulesProps {
  readonly sweep: IFunction;
  /** The outbox relay (none in a branch preview). */
  readonly relay?: IFunction;
  /**
   * Whether the sweep's rule runs (default true). Off in branch previews: each run connects, and
   * one a minute from any preview keeps the shared preview cluster from ever pausing
   * (docs/deploying.md); a preview's sessions are demo data, and its rule can be enabled by hand.
   */
  readonly sweepEnabled?: boolean;
  /**
   * The usage key function (infra/constructs/usage-plan-keys.ts), on a durable stage: run with
   * `reconcilePool`. None in a branch preview, whose pool is made as its workspaces use it (a whole
   * pool per preview would spend the account's 10,000 API keys).
   */
  readonly usageKeys?: IFunction;
}

/**
 * The stack's scheduled work: an EventBridge rule runs the stale-session sweep every minute (a
 * session quiet for SESSION_STALE_AFTER_SECONDS is completed by the next run; events published and
 * older than EVENT_RETENTION_DAYS are purged), another the outbox relay, a third (durable stages) the
 * usage key pool's reconcile. A failed run is retried by
 * EventBridge twice, and the next minute's run catches up anyway.
 */
export class Schedules extends Construct {
  readonly sweepRule: Rule;
  readonly relayRule?: Rule;
  readonly usageKeysRule?: Rule;

  constructor(
    scope: Construct,
    id: string,
    { sweep, relay, sweepEnabled = true, usageKeys }: SchedulesProps,
  ) {
    super(scope, id);
    this.sweepRule = new Rule(this, 'SessionSweep', {
      enabled: sweepEnabled,
      description: `Completes sessions without a heartbeat for ${SESSION_STALE_AFTER_SECONDS} s; purges published events older than ${EVENT_RETENTION_DAYS} days`,
      schedule: Schedule.rate(SWEEP_EVERY),
      targets: [new LambdaFunction(sweep, { retryAttempts: 2, maxEventAge: Duration.minutes(2) })],
    });
    if (relay) {
      // A missed run costs nothing: the next one sends what is still unpublished.
      this.relayRule = new Rule(this, 'EventRelay', {
        description: 'Publishes outbox events to the event bus',
        schedule: Schedule.rate(RELAY_EVERY),
        targets: [new LambdaFunction(relay, { retryAttempts: 2, maxEventAge: Duration.minutes(2) })],
      });
    }
    if (usageKeys) {
      // Idempotent, and a run that could not finish leaves the rest to the next one.
      this.usageKeysRule = new Rule(this, 'UsageKeyReconcile', {
        description: "Keeps every key of the stage's usage key pool in its tier's plan",
        schedule: Schedule.rate(USAGE_KEYS_EVERY),
        targets: [
          new LambdaFunction(usageKeys, {
            event: RuleTargetInput.fromObject({ op: 'reconcilePool' }),
            retryAttempts: 2,
            maxEventAge: Duration.minutes(4),
          }),
        ],
      });
    }
  }
}
