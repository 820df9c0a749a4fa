import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { claimDue, QUEUE_MAX_DELAY_SECONDS, stillDue } from '#db/queries/webhook-deliveries.ts';
import { lambda } from '../deps.ts';
import { type DeliveryQueue, deliveryQueueFromEnv } from './queue.ts';
import { stageSecretBox } from './secrets.ts';
import { attempt, defaultWorkerSettings, type WorkerDeps } from './worker.ts';

export interface DeliverDeps extends WorkerDeps {
  /** Where a retry SQS can hold back goes; without it every retry waits for the requeue. */
  queue?: DeliveryQueue;
}

/** The delivery id a message carries; undefined for a message that is not one of ours. */
function deliveryIdOf(body: string): string | undefined {
  try {
    const id = (JSON.parse(body) as { deliveryId?: unknown }).deliveryId;
    return typeof id === 'string' && /^[a-z0-9]{1,40}$/.test(id) ? id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The delivery queue's consumer: claims the deliveries a batch of messages names (the same claim
 * as the local worker's, so the per-endpoint bound holds across every instance), sends each,
 * records the attempt, and queues a retry SQS can hold back (longer waits are the requeue's).
 * A message whose delivery is still due after the claim (its endpoint had its fill in flight), or
 * whose attempt was not recorded, is answered as a batch item failure: SQS offers it again after
 * the visibility timeout, and to the dead-letter queue after a few receives. Any other (done, not
 * yet due, held by another instance, not ours) is dropped: the database says what is left.
 */
export const build =
  (deps: DeliverDeps) =>
  async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const messageOf = new Map<string, string[]>();
    for (const record of event.Records) {
      const id = deliveryIdOf(record.body);
      if (id) messageOf.set(id, [...(messageOf.get(id) ?? []), record.messageId]);
      else
        deps.logger('warn', 'webhook queue message without a delivery id dropped', {
          messageId: record.messageId,
        });
    }
    const ids = [...messageOf.keys()];
    const s = deps.settings;
    const claimed =
      ids.length === 0
        ? []
        : await deps.database.run(
            (sql) => claimDue(sql, ids.length, s.perEndpoint, s.policy.timeoutMs + 30_000, ids),
            {
              repeatable: false,
            },
          );
    const failed = new Set<string>();
    const retries: { id: string; delaySeconds: number }[] = [];
    await Promise.all(
      claimed.map(async (d) => {
        try {
          const outcome = await attempt(deps, d);
          if (outcome.kind === 'retry' && outcome.retryInMs <= QUEUE_MAX_DELAY_SECONDS * 1000)
            retries.push({ id: d.id, delaySeconds: Math.ceil(outcome.retryInMs / 1000) });
        } catch (error) {
          deps.logger('warn', 'webhook attempt not recorded', {
            deliveryId: d.id,
            error: (error as Error).message,
          });
          failed.add(d.id);
        }
      }),
    );
    const taken = new Set(claimed.map((d) => d.id));
    const waiting = ids.filter((id) => !taken.has(id));
    if (waiting.length > 0)
      for (const id of await deps.database.run((sql) => stillDue(sql, waiting), { repeatable: true }))
        failed.add(id);
    if (retries.length > 0 && deps.queue)
      await deps.queue.send(retries).catch((error: unknown) =>
        deps.logger('warn', 'webhook retries not queued; the requeue finds them', {
          error: (error as Error).message,
        }),
      );
    deps.logger(claimed.length > 0 ? 'info' : 'debug', 'webhooks delivered', {
      messages: event.Records.length,
      claimed: claimed.length,
      retried: retries.length,
      failed: failed.size,
    });
    return {
      batchItemFailures: [...failed].flatMap((id) =>
        (messageOf.get(id) ?? []).map((itemIdentifier) => ({ itemIdentifier })),
      ),
    };
  };

/** The secrets' key is read on the first message (stageSecretBox keeps it for the container). */
export const handler = lambda((deps) => {
  const settings = defaultWorkerSettings();
  const queue = deliveryQueueFromEnv();
  return async (event: SQSEvent) => build({ ...deps, box: await stageSecretBox(), settings, queue })(event);
});
