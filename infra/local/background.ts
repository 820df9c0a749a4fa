import type { Deps } from '#functions/deps.ts';
import type { RelayDeps } from '#functions/events/relay.ts';

/**
 * What `npm start` runs beside the API: the outbox relay and the webhook delivery worker, on the
 * local cadence. The bench runs these same loops (bench/gateway-process.ts) to time a delivery.
 */

/** How often `npm start` runs the outbox relay (every minute in AWS: quicker here, to watch). */
const LOCAL_RELAY_EVERY_MS = 1_000;
/** How often `npm start` runs the webhook worker for retries (a relay run that queued some wakes it at once). */
const LOCAL_WEBHOOKS_EVERY_MS = 1_000;

/**
 * The webhook delivery worker: woken by the relay when it queued deliveries, and on an interval for
 * the retries that come due. Loopback receivers over http are allowed here (WEBHOOK_ALLOW_LOOPBACK).
 */
export async function startWebhooks(deps: Deps) {
  const { build, defaultWorkerSettings } = await import('#functions/webhooks/worker.ts');
  const { secretBoxFromEnv } = await import('#functions/webhooks/secrets.ts');
  const worker = build({ ...deps, box: secretBoxFromEnv(), settings: defaultWorkerSettings() });
  let running: Promise<unknown> | undefined;
  let again = false;
  const stop = new AbortController();
  // A run goes on while it finds deliveries or has some in flight (claiming what comes due
  // meanwhile), so a wake-up during one is for the next.
  const wake = async () => {
    if (stop.signal.aborted) return;
    if (running) {
      again = true;
      return;
    }
    running = worker({ budgetMs: Number.POSITIVE_INFINITY, signal: stop.signal })
      .catch((error: unknown) =>
        deps.logger('warn', 'webhook delivery failed', { error: (error as Error).message }),
      )
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          void wake();
        }
      });
  };
  const timer = setInterval(() => void wake(), LOCAL_WEBHOOKS_EVERY_MS);
  timer.unref();
  return {
    wake,
    async close() {
      clearInterval(timer);
      stop.abort();
      await running;
    },
  };
}

/**
 * The outbox relay on an interval, publishing with `deps.publish`; a tick runs it again while a run
 * claims a full batch, so the outbox drains faster than one batch a tick.
 */
export async function startRelayLoop(deps: RelayDeps) {
  const { build, draining } = await import('#functions/events/relay.ts');
  const drain = draining(build(deps), Number.POSITIVE_INFINITY);
  let running: Promise<unknown> | undefined;
  const timer = setInterval(() => {
    // A run still going is left to finish: the next tick catches up.
    running ??= drain()
      .catch((error: unknown) =>
        deps.logger('warn', 'event relay failed', { error: (error as Error).message }),
      )
      .finally(() => {
        running = undefined;
      });
  }, LOCAL_RELAY_EVERY_MS);
  timer.unref();
  return {
    async close() {
      clearInterval(timer);
      await running;
    },
  };
}
