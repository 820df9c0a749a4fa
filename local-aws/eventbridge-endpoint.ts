/**
 * A local stand-in for EventBridge's PutEvents (AWS JSON 1.1, target `AWSEvents.PutEvents`) on its
 * own HTTP server: point AWS_ENDPOINT_URL_EVENTBRIDGE at it and the real SDK puts events here. It
 * keeps what it accepted, in order; `fail` lets a test refuse some entries as EventBridge may.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import { listen } from '#infra/local/listen.ts';

export interface PutEntry {
  EventBusName?: string;
  Source?: string;
  DetailType?: string;
  Detail?: string;
}

export interface EventBridgeEndpointOptions {
  /** An entry to refuse (answered with an ErrorCode, as a throttled or failed entry is). */
  fail?: (entry: PutEntry) => boolean;
  /** Called with each accepted entry (`npm start` logs it). */
  onEvent?: (entry: PutEntry) => void;
  port?: number;
  host?: string;
}

export interface EventBridgeEndpoint {
  url: string;
  /** Every accepted entry, in the order it arrived. */
  readonly accepted: PutEntry[];
  /** Entries per PutEvents call, in order. */
  readonly calls: number[];
  close(): Promise<void>;
}

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startEventBridgeEndpoint(
  options: EventBridgeEndpointOptions = {},
): Promise<EventBridgeEndpoint> {
  const accepted: PutEntry[] = [];
  const calls: number[] = [];
  const answer = (status: number, payload: unknown, errorType?: string) => ({
    status,
    headers: {
      'content-type': 'application/x-amz-json-1.1',
      ...(errorType ? { 'x-amzn-errortype': errorType } : {}),
    },
    body: JSON.stringify(payload),
  });
  const handle = async (req: IncomingMessage) => {
    const text = await body(req);
    // An unsigned call is refused as AWS refuses it: a client without credentials fails here too.
    if (!req.headers.authorization?.startsWith('AWS4-HMAC-SHA256 ')) {
      return answer(403, { message: 'Missing Authentication Token' }, 'MissingAuthenticationTokenException');
    }
    if (req.method !== 'POST' || req.headers['x-amz-target'] !== 'AWSEvents.PutEvents') {
      return answer(
        400,
        { message: `no local stand-in for ${req.headers['x-amz-target']}` },
        'UnknownOperationException',
      );
    }
    const entries = (JSON.parse(text) as { Entries?: PutEntry[] }).Entries ?? [];
    if (entries.length < 1 || entries.length > 10) {
      return answer(400, { message: 'Entries must hold 1 to 10 entries' }, 'ValidationException');
    }
    calls.push(entries.length);
    let failed = 0;
    const results = entries.map((entry) => {
      if (options.fail?.(entry)) {
        failed++;
        return { ErrorCode: 'InternalFailure', ErrorMessage: 'refused by the local stand-in' };
      }
      accepted.push(entry);
      options.onEvent?.(entry);
      return { EventId: randomUUID() };
    });
    return answer(200, { FailedEntryCount: failed, Entries: results });
  };
  const server = createServer((req, res) => {
    handle(req)
      .catch((error: unknown) => answer(500, { message: (error as Error).message }, 'InternalException'))
      .then(({ status, headers, body: text }) => res.writeHead(status, headers).end(text));
  });
  const url = await listen(server, options.port, options.host);
  return {
    url,
    accepted,
    calls,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}
