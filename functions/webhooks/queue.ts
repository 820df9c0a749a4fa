/** A delivery's message: its id, held back `delaySeconds` (SQS allows 0 to 900). */
export interface QueuedDelivery {
  id: string;
  delaySeconds: number;
}

export interface DeliveryQueue {
  /** Sends each id as a message; throws when SQS refused any (the database keeps them due). */
  send(deliveries: readonly QueuedDelivery[]): Promise<void>;
}

/** SendMessageBatch takes at most 10 entries. */
const BATCH = 10;

/** A message's body: the delivery's id, all the delivery function reads. */
export const messageBody = (id: string) => JSON.stringify({ deliveryId: id });

/**
 * The queue `WEBHOOK_QUEUE_URL` through the SDK (imported when first used: the runtime carries
 * it); undefined where the stage has no delivery queue. AWS_ENDPOINT_URL_SQS points it at a
 * stand-in locally.
 */
export function deliveryQueueFromEnv(
  env: Record<string, string | undefined> = process.env,
  clientConfig: Record<string, unknown> = {},
): DeliveryQueue | undefined {
  const queueUrl = env.WEBHOOK_QUEUE_URL;
  if (!queueUrl) return undefined;
  let client: Promise<DeliveryQueue> | undefined;
  const load = async (): Promise<DeliveryQueue> => {
    const { SQSClient, SendMessageBatchCommand } = await import('@aws-sdk/client-sqs');
    const sqs = new SQSClient(clientConfig);
    return {
      async send(deliveries) {
        const refused: string[] = [];
        for (let start = 0; start < deliveries.length; start += BATCH) {
          const chunk = deliveries.slice(start, start + BATCH);
          const answer = await sqs.send(
            new SendMessageBatchCommand({
              QueueUrl: queueUrl,
              Entries: chunk.map((d, i) => ({
                Id: String(i),
                MessageBody: messageBody(d.id),
                DelaySeconds: Math.min(900, Math.max(0, Math.ceil(d.delaySeconds))),
              })),
            }),
          );
          for (const failed of answer.Failed ?? []) refused.push(`${failed.Code}: ${failed.Message}`);
        }
        if (refused.length > 0) throw new Error(`SQS refused ${refused.length} messages: ${refused[0]}`);
      },
    };
  };
  return {
    async send(deliveries) {
      if (deliveries.length === 0) return;
      client ??= load().catch((error: unknown) => {
        client = undefined;
        throw error;
      });
      return (await client).send(deliveries);
    },
  };
}
