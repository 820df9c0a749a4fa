import { WEBHOOK_FAILING_DISABLE_DAYS } from '#contract/limits.ts';
import {
  type AttemptRecord,
  type ClaimedDelivery,
  claimDue,
  recordAttempt,
} from '#db/queries/webhook-deliveries.ts';
import { autoDisable } from '#db/queries/webhook-endpoints.ts';
import type { Deps } from '../deps.ts';
import type { SecretBox } from './secrets.ts';
import { type SendPolicy, type SendResult, send, sendPolicyFromEnv } from './send.ts';
import { webhookHeaders } from './signature.ts';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** The waits before each retry: 7 retries, 8 attempts in all over about 27 hours. */
export const RETRY_SCHEDULE_MS = [
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  10 * HOUR,
];

export interface WorkerSettings {
  schedule: readonly number[];
  /** Each wait is scaled by a random factor in [1 - jitter, 1 + jitter]. */
  jitter: number;
  /** Deliveries one claim takes. */
  batch: number;
  /** Deliveries in flight per endpoint at most (per claim, counting the other workers'). */
  perEndpoint: number;
  /** An endpoint failing every delivery this long is auto-disabled. */
  failingDisableAfterMs: number;
  /** Longest wait a 429's Retry-After may ask. */
  maxRetryAfterMs: number;
  policy: SendPolicy;
}

export const defaultWorkerSettings = (env = process.env): WorkerSettings => ({
  schedule: RETRY_SCHEDULE_MS,
  jitter: 0.1,
  batch: 50,
  perEndpoint: 10,
  failingDisableAfterMs: WEBHOOK_FAILING_DISABLE_DAYS * 24 * HOUR,
  maxRetryAfterMs: 10 * HOUR,
  policy: sendPolicyFromEnv(env),
});

export interface WorkerDeps extends Deps {
  box: SecretBox;
  settings: WorkerSettings;
}

/** What an attempt's result means for its delivery (the attempt count includes this one). */
export function outcomeOf(
  result: SendResult,
  attemptCount: number,
  s: WorkerSettings,
): AttemptRecord['outcome'] {
  const ok =
    result.error === null &&
    result.statusCode !== null &&
    result.statusCode >= 200 &&
    result.statusCode < 300;
  if (ok) return { kind: 'succeeded' };
  if (result.statusCode === 410) return { kind: 'dead' };
  const base = s.schedule[attemptCount - 1];
  if (base === undefined) return { kind: 'dead' };
  if (result.statusCode === 429 && result.retryAfterSeconds !== undefined)
    return { kind: 'retry', retryInMs: Math.min(result.retryAfterSeconds * SECOND, s.maxRetryAfterMs) };
  const factor = 1 + (Math.random() * 2 - 1) * s.jitter;
  return { kind: 'retry', retryInMs: Math.round(base * factor) };
}

/** One delivery's attempt: signed with every live secret, sent, recorded; the endpoint disabled when due. */
export async function attempt(deps: WorkerDeps, d: ClaimedDelivery): Promise<AttemptRecord['outcome']> {
  const secrets = [deps.box.open(d.secretSealed, d.endpointId)];
  if (d.previousSecretSealed) secrets.push(deps.box.open(d.previousSecretSealed, d.endpointId));
  const result = await send(
    d.url,
    webhookHeaders(secrets, d.eventId, d.payload),
    d.payload,
    deps.settings.policy,
  );
  const outcome = outcomeOf(result, d.attemptCount, deps.settings);
  const { failingSinceMs } = await deps.database.run((sql) => recordAttempt(sql, d, { ...result, outcome }), {
    repeatable: false,
  });
  const reason =
    result.statusCode === 410
      ? 'the endpoint answered 410 Gone'
      : failingSinceMs !== null && Date.now() - failingSinceMs >= deps.settings.failingDisableAfterMs
        ? `every delivery failed for ${Math.round(deps.settings.failingDisableAfterMs / HOUR)} hours`
        : undefined;
  if (reason)
    await deps.database.run((sql) => sql.rows(autoDisable(d.endpointId, reason)), { repeatable: false });
  return outcome;
}

/** While attempts are in flight, how often the worker looks for deliveries due since. */
const POLL_MS = 250;

/**
 * The delivery worker: claims due deliveries, sends them at once (bounded per endpoint by the
 * claim, and to `batch` in flight), records each attempt, and goes on while it finds any or has
 * some in flight, until `budgetMs` ends or `signal` aborts; then it waits for those in flight. A
 * slow receiver holds only its own: while attempts are in flight the worker claims what comes due
 * every POLL_MS and as each ends. `npm start` runs it on an interval and at the relay's wake-up; in
 * AWS the delivery queue's function (./deliver.ts) claims what its messages name instead.
 */
export const build =
  (deps: WorkerDeps) =>
  async (
    options: { budgetMs?: number; signal?: AbortSignal } = {},
  ): Promise<{ claimed: number; succeeded: number }> => {
    const until = Date.now() + (options.budgetMs ?? 0);
    const { batch, perEndpoint, policy } = deps.settings;
    const inFlight = new Set<Promise<void>>();
    let claimed = 0;
    let succeeded = 0;
    const start = (d: ClaimedDelivery) => {
      const running = attempt(deps, d)
        .catch((error: unknown) => {
          // The lease runs out and the delivery is due again: at least once.
          deps.logger('warn', 'webhook attempt not recorded', {
            deliveryId: d.id,
            error: (error as Error).message,
          });
          return { kind: 'retry' as const, retryInMs: 0 };
        })
        .then((outcome) => {
          if (outcome.kind === 'succeeded') succeeded++;
          inFlight.delete(running);
        });
      inFlight.add(running);
    };
    for (;;) {
      const room = batch - inFlight.size;
      const found =
        room > 0
          ? await deps.database.run((sql) => claimDue(sql, room, perEndpoint, policy.timeoutMs + 30_000), {
              repeatable: false,
            })
          : [];
      claimed += found.length;
      for (const d of found) start(d);
      if (Date.now() >= until || options.signal?.aborted || inFlight.size === 0) break;
      // Nothing more due now, or no room: until an attempt ends or a moment passes.
      if (found.length === 0 || inFlight.size >= batch) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          ...inFlight,
          new Promise((resolve) => {
            timer = setTimeout(resolve, POLL_MS);
          }),
        ]);
        clearTimeout(timer);
      }
    }
    await Promise.all(inFlight);
    deps.logger(claimed > 0 ? 'info' : 'debug', 'webhooks delivered', { claimed, succeeded });
    return { claimed, succeeded };
  };
