/**
 * A local stand-in for one SQS queue (the JSON protocol, targets `AmazonSQS.<Operation>`) on its
 * own HTTP server: point AWS_ENDPOINT_URL_SQS at it and the real SDK sends, receives and deletes
 * here. SendMessage, SendMessageBatch (DelaySeconds honoured), ReceiveMessage (a visibility
 * timeout, no long polling) and DeleteMessage; the MD5 digests are real, as the SDK checks them.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import { listen } from '#infra/local/listen.ts';

export interface StoredMessage {
  messageId: string;
  body: string;
  /** Epoch ms from which it may be received. */
  visibleAt: number;
  receiveCount: number;
  receiptHandle?: string;
  delaySeconds: number;
}

export interface SqsEndpoint {
  url: string;
  /** The queue URL to give the SDK. */
  queueUrl: string;
  /** Every message not yet deleted, in the order sent. */
  readonly messages: StoredMessage[];
  /** Every body ever sent, in order (deleted ones too). */
  readonly sent: { body: string; delaySeconds: number }[];
  close(): Promise<void>;
}

const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

interface Entry {
  Id?: string;
  MessageBody?: string;
  DelaySeconds?: number;
}

export async function startSqsEndpoint(
  options: { queueName?: string; visibilityTimeoutSeconds?: number } = {},
): Promise<SqsEndpoint> {
  const queueName = options.queueName ?? 'webhook-deliveries';
  const messages: StoredMessage[] = [];
  const sent: { body: string; delaySeconds: number }[] = [];
  const answer = (status: number, payload: unknown, errorType?: string) => ({
    status,
    headers: {
      'content-type': 'application/x-amz-json-1.0',
      ...(errorType ? { 'x-amzn-query-error': `${errorType};Sender` } : {}),
    },
    body: JSON.stringify(
      errorType ? { __type: `com.amazonaws.sqs#${errorType}`, ...(payload as object) } : payload,
    ),
  });
  const enqueue = (entry: Entry) => {
    const delaySeconds = entry.DelaySeconds ?? 0;
    if (typeof entry.MessageBody !== 'string' || entry.MessageBody.length === 0)
      return { error: 'MessageBody is required' };
    if (!Number.isInteger(delaySeconds) || delaySeconds < 0 || delaySeconds > 900)
      return { error: 'DelaySeconds must be 0 to 900' };
    const message: StoredMessage = {
      messageId: randomUUID(),
      body: entry.MessageBody,
      visibleAt: Date.now() + delaySeconds * 1000,
      receiveCount: 0,
      delaySeconds,
    };
    messages.push(message);
    sent.push({ body: entry.MessageBody, delaySeconds });
    return { message };
  };
  const operations: Record<string, (input: Record<string, unknown>) => ReturnType<typeof answer>> = {
    SendMessage(input) {
      const { message, error } = enqueue(input as Entry);
      if (!message) return answer(400, { message: error }, 'InvalidParameterValue');
      return answer(200, { MessageId: message.messageId, MD5OfMessageBody: md5(message.body) });
    },
    SendMessageBatch(input) {
      const entries = (input.Entries as Entry[] | undefined) ?? [];
      if (entries.length < 1 || entries.length > 10)
        return answer(400, { message: 'Entries must hold 1 to 10 entries' }, 'TooManyEntriesInBatchRequest');
      const Successful: unknown[] = [];
      const Failed: unknown[] = [];
      for (const entry of entries) {
        const { message, error } = enqueue(entry);
        if (message)
          Successful.push({
            Id: entry.Id,
            MessageId: message.messageId,
            MD5OfMessageBody: md5(message.body),
          });
        else Failed.push({ Id: entry.Id, SenderFault: true, Code: 'InvalidParameterValue', Message: error });
      }
      return answer(200, { Successful, Failed });
    },
    ReceiveMessage(input) {
      const max = Number(input.MaxNumberOfMessages ?? 1);
      const visibility = Number(input.VisibilityTimeout ?? options.visibilityTimeoutSeconds ?? 30);
      const now = Date.now();
      const taken = messages.filter((m) => m.visibleAt <= now).slice(0, max);
      for (const m of taken) {
        m.visibleAt = now + visibility * 1000;
        m.receiveCount++;
        m.receiptHandle = randomUUID();
      }
      return answer(200, {
        Messages: taken.map((m) => ({
          MessageId: m.messageId,
          ReceiptHandle: m.receiptHandle,
          MD5OfBody: md5(m.body),
          Body: m.body,
          Attributes: { ApproximateReceiveCount: String(m.receiveCount) },
        })),
      });
    },
    DeleteMessage(input) {
      const at = messages.findIndex((m) => m.receiptHandle === input.ReceiptHandle);
      if (at < 0)
        return answer(400, { message: 'The receipt handle is not valid' }, 'ReceiptHandleIsInvalid');
      messages.splice(at, 1);
      return answer(200, {});
    },
  };
  const handle = async (req: IncomingMessage) => {
    const text = await bodyOf(req);
    // An unsigned call is refused as AWS refuses it.
    if (!req.headers.authorization?.startsWith('AWS4-HMAC-SHA256 '))
      return answer(403, { message: 'Missing Authentication Token' }, 'MissingAuthenticationToken');
    const target = String(req.headers['x-amz-target'] ?? '');
    const operation = target.startsWith('AmazonSQS.')
      ? operations[target.slice('AmazonSQS.'.length)]
      : undefined;
    if (req.method !== 'POST' || !operation)
      return answer(400, { message: `no local stand-in for ${target}` }, 'UnsupportedOperation');
    const input = JSON.parse(text || '{}') as Record<string, unknown>;
    if (input.QueueUrl !== queueUrl)
      return answer(400, { message: `no queue ${String(input.QueueUrl)}` }, 'QueueDoesNotExist');
    return operation(input);
  };
  const server = createServer((req, res) => {
    handle(req)
      .catch((error: unknown) => answer(500, { message: (error as Error).message }, 'InternalError'))
      .then(({ status, headers, body }) => res.writeHead(status, headers).end(body));
  });
  const url = await listen(server);
  const queueUrl = `${url}/000000000000/${queueName}`;
  return {
    url,
    queueUrl,
    messages,
    sent,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}
