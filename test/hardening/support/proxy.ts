import { createServer, connect as netConnect, type Server, type Socket } from 'node:net';

/**
 * What the proxy does with connections:
 * - `pass`: forwards both ways, as if the database were there;
 * - `refuse`: nothing listens on the port (ECONNREFUSED), as while a server restarts;
 * - `reset`: accepts, then resets the connection at once (ECONNRESET);
 * - `close`: accepts, then closes it cleanly without a byte (a proxy with no backend);
 * - `blackhole`: accepts and never answers (a dropped route, a frozen failover).
 */
export type ProxyMode = 'pass' | 'refuse' | 'reset' | 'close' | 'blackhole';

interface Link {
  client: Socket;
  server?: Socket;
  /** Black-holed links swallow everything from then on, even once the proxy passes again. */
  dead: boolean;
  /** Who sent the link's last bytes. */
  lastFrom?: 'client' | 'server';
}

/**
 * A TCP proxy between the code under test and the real Postgres server, so tests can take "the
 * database" away without touching the server other test files share.
 */
export class FaultProxy {
  #server: Server | undefined;
  #mode: ProxyMode = 'pass';
  readonly #links = new Set<Link>();
  /** Every client socket still open, whatever the mode, so close() never waits on a dead one. */
  readonly #sockets = new Set<Socket>();
  /** Connections accepted since the start, whatever became of them. */
  accepted = 0;
  /** How often a client spoke after its server (or first): the round trips, summed over the links. */
  turns = 0;

  private constructor(
    readonly port: number,
    readonly target: { host: string; port: number },
  ) {}

  static async start(targetUrl: string): Promise<FaultProxy> {
    const url = new URL(targetUrl);
    const probe = createServer();
    await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
    const { port } = probe.address() as { port: number };
    await new Promise((done) => probe.close(done));
    const proxy = new FaultProxy(port, { host: url.hostname, port: Number(url.port || 5432) });
    await proxy.#listen();
    return proxy;
  }

  /** The same database URL, pointed at the proxy. */
  url(databaseUrl: string): string {
    const url = new URL(databaseUrl);
    url.hostname = '127.0.0.1';
    url.port = String(this.port);
    return url.toString();
  }

  get mode() {
    return this.#mode;
  }

  get openLinks() {
    return [...this.#links].filter((l) => !l.client.destroyed).length;
  }

  /** Changes what happens to new connections; `refuse` also stops listening. Existing ones are kept. */
  async setMode(mode: ProxyMode) {
    this.#mode = mode;
    if (mode === 'refuse') await this.#unlisten();
    else await this.#listen();
  }

  /** Resets every open connection, as a failover or a dropped NAT entry does. */
  resetAll() {
    for (const link of this.#links) this.#drop(link);
  }

  /** Open connections stop carrying bytes, both ways, for good (their packets are lost). */
  blackholeAll() {
    for (const link of this.#links) link.dead = true;
  }

  async close() {
    this.resetAll();
    for (const socket of this.#sockets) socket.destroy();
    await this.#unlisten();
  }

  #drop(link: Link) {
    link.client.resetAndDestroy();
    link.server?.destroy();
    this.#links.delete(link);
  }

  async #listen() {
    if (this.#server) return;
    const server = createServer((client) => this.#accept(client));
    this.#server = server;
    await new Promise<void>((done, fail) => {
      server.once('error', fail);
      server.listen(this.port, '127.0.0.1', () => done());
    });
  }

  async #unlisten() {
    const server = this.#server;
    if (!server) return;
    this.#server = undefined;
    // Stops listening at once; close()'s callback would wait for the open connections as well.
    server.close();
    await new Promise((done) => setImmediate(done));
  }

  #accept(client: Socket) {
    this.accepted++;
    this.#sockets.add(client);
    client.on('close', () => this.#sockets.delete(client));
    client.on('error', () => {});
    const link: Link = { client, dead: false };
    switch (this.#mode) {
      case 'reset':
        client.resetAndDestroy();
        return;
      case 'close':
        client.end();
        return;
      case 'blackhole':
        link.dead = true;
        this.#links.add(link);
        client.on('data', () => {});
        client.on('close', () => this.#links.delete(link));
        return;
      default:
        break;
    }
    const server = netConnect(this.target.port, this.target.host);
    link.server = server;
    this.#links.add(link);
    server.on('error', () => client.destroy());
    client.on('close', () => {
      server.destroy();
      this.#links.delete(link);
    });
    server.on('close', () => link.dead || client.destroy());
    client.on('data', (chunk) => {
      if (link.lastFrom !== 'client') this.turns++;
      link.lastFrom = 'client';
      link.dead || server.write(chunk);
    });
    server.on('data', (chunk) => {
      link.lastFrom = 'server';
      link.dead || client.write(chunk);
    });
  }
}
