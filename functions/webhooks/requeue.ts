import { dueForQueue } from '#db/queries/webhook-deliveries.ts';
import { type Deps, lambda } from '../deps.ts';
import { type DeliveryQueue, deliveryQueueFromEnv } from './queue.ts';

/** Deliveries one run hands the queue at most. */
export const REQUEUE_BATCH = 1000;
/** The run's period (its EventBridge rule's): what comes due before the next run goes now, delayed. */
export const REQUEUE_AHEAD_MS = 60_000;
/** How overdue a delivery a message should carry may get before its message counts as lost. */
export const REQUEUE_GRACE_MS = 60_000;

export interface RequeueDeps extends Deps {
  queue: DeliveryQueue;
}

/**
 * The scheduled requeue (every minute in AWS): hands the delivery queue the deliveries no message
 * carries: retries longer than SQS can hold back as they come due, tests and redeliveries the
 * routes queued, recoveries, and anything whose message was lost. The database is the truth: a
 * message sent twice only meets a delivery already claimed or done.
 */
export const build = (deps: RequeueDeps) => async (_event?: unknown) => {
  const due = await deps.database.run(
    (sql) => dueForQueue(sql, REQUEUE_BATCH, REQUEUE_AHEAD_MS, REQUEUE_GRACE_MS),
    { repeatable: true },
  );
  await deps.queue.send(due);
  deps.logger(due.length > 0 ? 'info' : 'debug', 'webhook deliveries requeued', { requeued: due.length });
  return { requeued: due.length };
};

export const handler = lambda((deps) => {
  const queue = deliveryQueueFromEnv();
  if (!queue) throw new Error('Set WEBHOOK_QUEUE_URL.');
  return build({ ...deps, queue });
});
