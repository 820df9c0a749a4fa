import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One request the receiver got: what was sent, as sent. */
export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** How the receiver answers a path: by default 200 `ok`. */
export type Behaviour = (req: IncomingMessage, res: ServerResponse) => void;

export const behaviours = {
  ok: (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'),
  fail: (_req, res) => res.writeHead(500, { 'content-type': 'text/plain' }).end('receiver broke'),
  unavailable: (_req, res) => res.writeHead(503).end('down for maintenance'),
  gone: (_req, res) => res.writeHead(410).end('gone'),
  busy: (_req, res) => res.writeHead(429, { 'retry-after': '7' }).end('slow down'),
  /** Never answers. */
  silent: () => {},
  /** Headers, then nothing more. */
  hang: (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('partial');
  },
  /** Drops the connection without a word. */
  close: (req) => req.socket.destroy(),
  redirect: (_req, res) => res.writeHead(302, { location: '/r/redirect-target' }).end(),
  big: (_req, res) => res.writeHead(200).end('x'.repeat(100_000)),
} satisfies Record<string, Behaviour>;

/**
 * A real HTTP receiver on 127.0.0.1 (HTTPS with `tls`'s key and certificate): `/r/<name>` answers
 * as `behaviours[name]` (or as `set(name, …)` said). It records every request, and how many were
 * in flight at once per path.
 */
export async function startReceiver(tls?: { key: string; cert: string }) {
  const received: Received[] = [];
  const custom = new Map<string, Behaviour>();
  const inFlight = new Map<string, number>();
  const peak = new Map<string, number>();
  const listener: RequestListener = (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      received.push({
        path,
        headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const n = (inFlight.get(path) ?? 0) + 1;
      inFlight.set(path, n);
      peak.set(path, Math.max(peak.get(path) ?? 0, n));
      res.on('close', () => inFlight.set(path, (inFlight.get(path) ?? 1) - 1));
      const name = path.split('/')[2] ?? 'ok';
      const behaviour = custom.get(name) ?? behaviours[name as keyof typeof behaviours] ?? behaviours.ok;
      behaviour(req, res);
    });
  };
  const server = tls ? createHttpsServer(tls, listener) : createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (name: string) => `${tls ? 'https' : 'http'}://127.0.0.1:${port}/r/${name}`,
    port,
    received,
    at: (name: string) => received.filter((r) => r.path === `/r/${name}`),
    peak: (name: string) => peak.get(`/r/${name}`) ?? 0,
    set: (name: string, behaviour: Behaviour) => custom.set(name, behaviour),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/**
 * Whether the request verifies under `secret`, by the Standard Webhooks library alone (never this
 * project's signing code): the parsed body when it does, undefined when it does not.
 */
export function verified(secret: string, r: Received): unknown {
  try {
    return new Webhook(secret).verify(r.body, {
      'webhook-id': r.headers['webhook-id'] ?? '',
      'webhook-timestamp': r.headers['webhook-timestamp'] ?? '',
      'webhook-signature': r.headers['webhook-signature'] ?? '',
    });
  } catch {
    return undefined;
  }
}
