/**
 * `npm start`'s local admin channel: while it holds the embedded database, the CLIs (workspace,
 * token, db:seed, sessions:sweep) send their work here instead of opening the database themselves
 * (cli/local-server.ts). POST /admin runs an admin command through the admin function's own
 * `build(deps)`, answering its AdminAnswer; POST /sweep runs the scheduled housekeeping once.
 * On 127.0.0.1 only, and each request must carry the secret announced in the data directory's
 * server file (db/embedded-lock.ts), readable by this user alone.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { build as buildAdmin } from '#functions/admin.ts';
import type { Deps } from '#functions/deps.ts';
import { build as buildSweep } from '#functions/sessions/sweep.ts';
import { listen } from './listen.ts';

export interface AdminChannel {
  url: string;
  secret: string;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 1024 * 1024;

async function body(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error('body too large');
    chunks.push(chunk as Buffer);
  }
  return chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {};
}

export async function startAdminChannel(deps: Deps): Promise<AdminChannel> {
  const secret = randomBytes(32).toString('base64url');
  const expected = Buffer.from(`Bearer ${secret}`);
  // Seeding is what a local database is for, as the CLIs' own local path allows it.
  const admin = buildAdmin(deps, { stage: 'local', demoSeed: true });
  const sweep = buildSweep(deps);
  const answer = (res: ServerResponse, status: number, value: unknown) => {
    const text = JSON.stringify(value);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };
  const server = createServer((req, res) => {
    const given = Buffer.from(req.headers.authorization ?? '');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return answer(res, 401, { message: 'this channel takes the secret in the server file' });
    }
    const work =
      req.method === 'POST' && req.url === '/admin'
        ? async () => admin(await body(req))
        : req.method === 'POST' && req.url === '/sweep'
          ? async () => sweep()
          : undefined;
    if (!work) return answer(res, 404, { message: `no ${req.method} ${req.url}` });
    work().then(
      (result) => answer(res, 200, result),
      (error: unknown) => answer(res, 500, { message: (error as Error).message }),
    );
  });
  const url = await listen(server, 0, '127.0.0.1');
  return {
    url,
    secret,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}
