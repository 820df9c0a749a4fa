import {
  type ClaimedEvent,
  claimUnpublished,
  type EventEnvelope,
  markPublished,
} from '#db/queries/events.ts';
import { fanOut } from '#db/queries/webhook-deliveries.ts';
import { type Deps, lambda } from '../deps.ts';
import { deliveryQueueFromEnv } from '../webhooks/queue.ts';

/** Events one run claims; PutEvents takes at most 10 entries a call. */
export const RELAY_BATCH = 100;
const PUT_EVENTS_MAX = 10;
export const EVENT_SOURCE = 'voice-agent-admin';

/** Sends envelopes to the bus; for each, in order, whether it was accepted. */
export type Publish = (envelopes: readonly EventEnvelope[]) => Promise<boolean[]>;

export interface RelayDeps extends Deps {
  publish: Publish;
  /**
   * Handed the webhook deliveries a run queued, after it committed: the delivery queue in AWS, the
   * worker's wake-up under `npm start`. A lost hand-off is found again by the requeue.
   */
  wake?: (deliveryIds: readonly string[]) => Promise<void>;
}

/**
 * PutEvents to the bus `EVENT_BUS_NAME`. The SDK client is imported when first used (the runtime
 * carries it; bundles leave `@aws-sdk/client-*` out); AWS_ENDPOINT_URL_EVENTBRIDGE points it at
 * a stand-in locally.
 */
export function eventBridgePublisher(
  env: Record<string, string | undefined> = process.env,
  /** The client's settings where not the environment's (`npm start`'s in-process stand-in). */
  clientConfig: Record<string, unknown> = {},
): Publish {
  const busName = env.EVENT_BUS_NAME;
  if (!busName) throw new Error('Set EVENT_BUS_NAME.');
  let client: Promise<{ send: Publish }> | undefined;
  const load = async () => {
    const { EventBridgeClient, PutEventsCommand } = await import('@aws-sdk/client-eventbridge');
    const bridge = new EventBridgeClient(clientConfig);
    const send: Publish = async (envelopes) => {
      const answer = await bridge.send(
        new PutEventsCommand({
          Entries: envelopes.map((envelope) => ({
            EventBusName: busName,
            Source: EVENT_SOURCE,
            DetailType: envelope.type,
            Detail: JSON.stringify(envelope),
          })),
        }),
      );
      // Entries answer the request's in order: an accepted one has an EventId, a failed one an ErrorCode.
      return envelopes.map(
        (_, i) => Boolean(answer.Entries?.[i]?.EventId) && !answer.Entries?.[i]?.ErrorCode,
      );
    };
    return { send };
  };
  return async (envelopes) => {
    client ??= load().catch((error: unknown) => {
      client = undefined;
      throw error;
    });
    return (await client).send(envelopes);
  };
}

/** What a run did: events claimed, published, refused (left for the next run), deliveries queued. */
export interface RelayCounts {
  claimed: number;
  published: number;
  failed: number;
  queued: number;
}

/**
 * The outbox relay, run on a schedule (an EventBridge rule in AWS, an interval under `npm start`):
 * claims a batch of unpublished events in feed order, sends them 10 at a time, and marks exactly the
 * accepted ones published, in the claiming transaction. A failed entry or call stays for the next
 * run: delivery is at least once (a run that dies after sending resends), consumers dedupe by id.
 */
export const build =
  (deps: RelayDeps) =>
  async (_event?: unknown): Promise<RelayCounts> => {
    const outcome = await deps.database.run(
      (sql) =>
        sql.transaction(async (tx) => {
          const claimed = await claimUnpublished(tx, RELAY_BATCH);
          // Webhook deliveries are queued with the claim: an event claimed is an event queued.
          const deliveryIds = await fanOut(
            tx,
            claimed.map((c) => c.seq),
          );
          const delivered: ClaimedEvent[] = [];
          let failed = 0;
          for (let start = 0; start < claimed.length; start += PUT_EVENTS_MAX) {
            const chunk = claimed.slice(start, start + PUT_EVENTS_MAX);
            const accepted = await deps.publish(chunk.map((c) => c.envelope)).catch((error: unknown) => {
              deps.logger('warn', 'PutEvents failed; the events stay for the next run', {
                error: (error as Error).message,
              });
              return chunk.map(() => false);
            });
            for (const [i, c] of chunk.entries()) {
              if (accepted[i]) delivered.push(c);
              else failed++;
            }
          }
          const published = await markPublished(
            tx,
            delivered.map((c) => c.seq),
          );
          return { claimed: claimed.length, published, failed, queued: deliveryIds.length, deliveryIds };
        }),
      { repeatable: true },
    );
    const { deliveryIds, ...counts } = outcome;
    // A run with nothing to send is the usual one: said at debug only.
    deps.logger(counts.claimed > 0 ? 'info' : 'debug', 'events relayed', counts);
    if (deliveryIds.length > 0)
      await deps.wake?.(deliveryIds).catch((error: unknown) =>
        deps.logger('warn', 'webhook deliveries not handed to the queue; the requeue finds them', {
          error: (error as Error).message,
        }),
      );
    return counts;
  };

/**
 * The relay run again at once while a run claims a full batch, until `budgetMs` has passed: a
 * schedule's tick drains a backlog rather than one batch of it.
 */
export const draining =
  (relay: ReturnType<typeof build>, budgetMs: number) =>
  async (_event?: unknown): Promise<RelayCounts & { runs: number }> => {
    const until = Date.now() + budgetMs;
    const total = { runs: 0, claimed: 0, published: 0, failed: 0, queued: 0 };
    for (;;) {
      const run = await relay();
      total.runs++;
      for (const key of ['claimed', 'published', 'failed', 'queued'] as const) total[key] += run[key];
      if (run.claimed < RELAY_BATCH || Date.now() >= until) return total;
    }
  };

/** With WEBHOOK_QUEUE_URL (a stage with webhooks), the queued deliveries go to the delivery queue. */
export const handler = lambda((deps) => {
  const queue = deliveryQueueFromEnv();
  const relay = build({
    ...deps,
    publish: eventBridgePublisher(),
    wake: queue && ((ids) => queue.send(ids.map((id) => ({ id, delaySeconds: 0 })))),
  });
  // Runs start a minute apart and may last RELAY_TIMEOUT (30 s): draining stops starting new
  // batches after 20 s, leaving room for the last one.
  return draining(relay, 20_000);
});
