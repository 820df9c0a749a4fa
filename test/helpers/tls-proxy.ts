import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, connect as netConnect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TLSSocket } from 'node:tls';

/**
 * A throw-away self-signed certificate for localhost, its name in the subjectAltName too, with
 * `altNames` (e.g. `IP:127.0.0.1`) beside it (needs openssl).
 */
export function selfSignedCertificate(altNames: readonly string[] = []): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'vaa-tls-'));
  try {
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost', '-days', '1'].concat([
        '-addext',
        ['subjectAltName=DNS:localhost', ...altNames].join(','),
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ]),
      { stdio: 'ignore' },
    );
    return {
      key: readFileSync(join(dir, 'key.pem'), 'utf8'),
      cert: readFileSync(join(dir, 'cert.pem'), 'utf8'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const SSL_REQUEST = Buffer.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f]);

/**
 * Postgres's TLS in front of a server without it: answers the SSLRequest with `S`, terminates TLS,
 * and forwards the plain protocol. As RDS Proxy requires TLS, this is how the client's TLS path
 * is exercised against the local server.
 */
export async function startTlsProxy(
  target: { host: string; port: number },
  tls: { key: string; cert: string },
) {
  const sockets = new Set<Socket>();
  /** The server name (SNI) each TLS client sent, `false` when it sent none. */
  const servernames: (string | false)[] = [];
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => {});
    client.once('data', (first: Buffer) => {
      if (!first.subarray(0, 8).equals(SSL_REQUEST)) return client.destroy();
      client.write('S');
      const secure = new TLSSocket(client, { isServer: true, ...tls });
      secure.once('secure', () =>
        servernames.push((secure as TLSSocket & { servername: string | false }).servername),
      );
      const upstream = netConnect(target.port, target.host);
      sockets.add(upstream);
      upstream.on('close', () => {
        sockets.delete(upstream);
        secure.destroy();
      });
      upstream.on('error', () => secure.destroy());
      secure.on('error', () => upstream.destroy());
      secure.on('close', () => upstream.destroy());
      secure.pipe(upstream);
      upstream.pipe(secure);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  return {
    port,
    servernames,
    /** TLS connections open through the proxy right now. */
    get open() {
      return [...sockets].filter((s) => !s.destroyed).length;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((done) => server.close(done));
    },
  };
}
