import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '#db/client.ts';
import { silentLogger } from '#functions/http/log.ts';
import { type Gateway, startGateway } from '#infra/local/gateway.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { createTenant, type Tenant } from '#test/helpers/tenants.ts';

let database: DatabaseHandle;
let gateway: Gateway;
let tenant: Tenant;
/** Every connection the gateway accepted, to count the bytes it read from each. */
const accepted: Socket[] = [];

beforeAll(async () => {
  database = await freshDatabase();
  tenant = await createTenant(database.db);
  gateway = await startGateway({
    deps: { database, logger: silentLogger },
    baseUrl: 'https://api.example.test/v1',
  });
  gateway.server.on('connection', (socket: Socket) => accepted.push(socket));
});

afterAll(async () => {
  await gateway?.close();
  await database?.close();
});

const TEN_MIB = 10 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 0x61);

/**
 * A POST /agents declaring a 10 MiB body and sending it for as long as the server lets it (the
 * same 64 KiB chunk again and again: the client holds no 10 MiB); resolves with the status line
 * once the answer is in, or the connection is gone.
 */
function upload(port: number, headers: string): Promise<string> {
  return new Promise((done) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    let sent = 0;
    const pump = () => {
      while (sent < TEN_MIB && !socket.destroyed) {
        sent += CHUNK.length;
        if (!socket.write(CHUNK)) return void socket.once('drain', pump);
      }
    };
    socket.on('connect', () => {
      socket.write(
        `POST /agents HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${TEN_MIB}\r\n${headers}\r\n`,
      );
      pump();
    });
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
      if (answer.includes('\r\n\r\n')) {
        socket.destroy();
        done(answer.split('\r\n')[0] ?? '');
      }
    });
    socket.on('error', () => done(answer.split('\r\n')[0] ?? ''));
    socket.on('close', () => done(answer.split('\r\n')[0] ?? ''));
  });
}

describe('the local gateway reads no body before the route and the caller are known', () => {
  it('100 concurrent unauthenticated 10 MiB uploads get 401 without the gateway reading them', async () => {
    const before = accepted.length;
    const port = Number(new URL(gateway.url).port);
    const statuses = await Promise.all(Array.from({ length: 100 }, () => upload(port, '')));
    expect(new Set(statuses)).toEqual(new Set(['HTTP/1.1 401 Unauthorized']));
    const read = accepted.slice(before).reduce((sum, socket) => sum + socket.bytesRead, 0);
    console.info(`[gateway] read ${read} bytes of 100 × 10 MiB refused uploads`);
    // 1 GiB was sent at it: it reads at most what the parser took in with the headers (64 KiB each).
    expect(read).toBeLessThan(100 * 256 * 1024);
  });

  it('100 concurrent uploads with an unknown key get 403, the bodies unread', async () => {
    const before = accepted.length;
    const port = Number(new URL(gateway.url).port);
    const statuses = await Promise.all(
      Array.from({ length: 100 }, () => upload(port, `Authorization: Bearer vak_${'Z'.repeat(43)}\r\n`)),
    );
    expect(new Set(statuses)).toEqual(new Set(['HTTP/1.1 403 Forbidden']));
    const read = accepted.slice(before).reduce((sum, socket) => sum + socket.bytesRead, 0);
    console.info(`[gateway] read ${read} bytes of 100 × 10 MiB refused uploads`);
    expect(read).toBeLessThan(100 * 256 * 1024);
  });

  it('a body over the cap while streaming (chunked, no length) gets 413 before it all arrives', async () => {
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    let sent = 0;
    const body = new ReadableStream({
      pull: (controller) => (sent++ < 40 ? controller.enqueue(chunk) : controller.close()),
    });
    const res = await fetch(`${gateway.url}/agents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(sent).toBeLessThan(40);
  });
});

describe('Link headers come from the configured base URL, not the Host header', () => {
  it('a next link on the API’s own domain whatever Host the client sent', async () => {
    for (const name of ['One', 'Two']) {
      await fetch(`${gateway.url}/agents`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name }),
      });
    }
    const socket = connect(Number(new URL(gateway.url).port), '127.0.0.1');
    const text = await new Promise<string>((done) => {
      let received = '';
      // Not half-closed: the server answers `Connection: close` and then closes itself.
      socket.on('connect', () =>
        socket.write(
          `GET /agents?limit=1 HTTP/1.1\r\nHost: evil.example\r\nAuthorization: Bearer ${tenant.token}\r\nConnection: close\r\n\r\n`,
        ),
      );
      socket.on('data', (chunk) => (received += chunk));
      socket.on('end', () => done(received));
    });
    const link = /\r\nlink: ([^\r]*)\r\n/i.exec(text)?.[1];
    expect(link).toMatch(/^<https:\/\/api\.example\.test\/agents\?limit=1&offset=1>; rel="next"$/);
    expect(text).not.toContain('evil.example');
  });
});
