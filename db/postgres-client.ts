import { connect, Socket } from 'node:net';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import type { Database, DatabaseConfig, DatabaseHandle } from './database.ts';
import { brokeTheConnection } from './errors.ts';
import * as schema from './schema/index.ts';

/** Below the functions' 10 s timeout, with room for the answer: a hung database is a 503, not a timeout. */
export const REQUEST_TIMEOUT_MS = 7_000;
/** How long close() lets queries finish before cutting the connections. */
const CLOSE_SECONDS = 5;

/**
 * postgres.js with Lambda settings by default: one connection per container (the container serves
 * one request at a time), idle connections closed before RDS Proxy would, no server-side prepared
 * statements so the proxy never pins a connection, and a client replaced whole after a fault.
 */
export function openPostgres(config: Extract<DatabaseConfig, { kind: 'postgres' }>): DatabaseHandle {
  const requestTimeoutMs = config.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const options = {
    max: config.poolMax ?? 1,
    prepare: false,
    idle_timeout: 20,
    connect_timeout: config.connectTimeoutSeconds ?? 5,
    max_lifetime: 60 * 30,
    onnotice: () => {},
    // The server gives up on a statement before the request's deadline does.
    connection: {
      application_name: 'voice-agent-admin-api',
      statement_timeout: Math.max(1_000, requestTimeoutMs - 1_000),
    },
  };
  const pool = new RecyclingPool(
    (socket) => postgres(config.url, { ...options, socket } as postgres.Options<Record<string, never>>),
    requestTimeoutMs,
  );
  const db = drizzlePostgres({ client: pool.client, schema });
  pools.set(db, pool);
  return { db, config, close: () => pool.end() };
}

type SocketOptions = { host: string[]; port: number[]; path?: string | false };

/**
 * postgres.js's socket, except that a connection closed before the server sent a byte is an
 * error: postgres.js would otherwise reconnect in a tight loop and never answer the query.
 */
function socketFor(options: SocketOptions) {
  const socket = options.path
    ? connect(options.path)
    : connect(options.port[0] ?? 5432, options.host[0] ?? 'localhost');
  socket.once('end', () => {
    if (socket.bytesRead > 0) return;
    const error = new Error('The database closed the connection without answering.');
    socket.destroy(Object.assign(error, { code: 'CONNECTION_CLOSED' }));
  });
  return socket;
}

/** One postgres.js client and every socket it opened; once retired, it opens none. */
class Generation {
  readonly sql: postgres.Sql;
  readonly #sockets = new Set<Socket>();
  #retired = false;

  constructor(open: (socket: (options: SocketOptions) => Socket) => postgres.Sql) {
    this.sql = open((options) => {
      const socket = this.#retired ? refused() : socketFor(options);
      this.#sockets.add(socket);
      socket.once('close', () => this.#sockets.delete(socket));
      return socket;
    });
  }

  /** Stops it for good: its queries fail, and no socket of it is opened again. */
  async retire(seconds: number) {
    this.#retired = true;
    await this.sql.end({ timeout: seconds }).catch(() => {});
    // Only once postgres.js has said goodbye: a socket cut under its TLS layer while it still
    // writes is an uncaught EBADF. Then what a black hole still holds goes too.
    setTimeout(() => {
      for (const socket of this.#sockets) socket.destroy();
    }, 1_000).unref();
  }
}

/** A socket that fails as soon as postgres.js listens: what a retired client gets. */
function refused() {
  const socket = new Socket();
  setImmediate(() =>
    socket.destroy(
      Object.assign(new Error('This database client was replaced.'), { code: 'CONNECTION_DESTROYED' }),
    ),
  );
  return socket;
}

/**
 * A postgres.js client that can be swapped for a fresh one. After a socket error postgres.js 3.4
 * can leave a connection that never answers again (porsager/postgres#1130), and its end() can let
 * queued queries and reconnect timers reopen connections; so after any sign of trouble the client
 * is retired whole (what was queued on it fails: a 503) and a new one takes over. Drizzle holds
 * `client`, which always forwards to the current one.
 */
class RecyclingPool {
  readonly client: postgres.Sql;
  #current: Generation;

  constructor(
    open: (socket: (options: SocketOptions) => Socket) => postgres.Sql,
    readonly requestTimeoutMs: number,
  ) {
    this.#current = new Generation(open);
    this.client = new Proxy(this.#current.sql, {
      get: (_, key) => Reflect.get(this.#current.sql, key),
      apply: (_, __, args) => Reflect.apply(this.#current.sql as never, undefined, args),
    });
  }

  get current() {
    return this.#current.sql;
  }

  /**
   * Replaces `client` by a new one, whose first statement opens a fresh connection. Only if
   * `client` is still the current one, so a burst of failures replaces it once, not once each.
   */
  recycle(client: postgres.Sql) {
    if (client !== this.#current.sql) return;
    const old = this.#current;
    // The same parsed options (the type parsers drizzle installed included), its own sockets.
    this.#current = new Generation((socket) => postgres({ ...old.sql.options, socket } as never));
    void old.retire(0);
  }

  end() {
    return this.#current.retire(CLOSE_SECONDS);
  }
}

const pools = new WeakMap<Database, RecyclingPool>();

/** A request that waited on the database past its deadline. */
export class DatabaseTimeout extends Error {
  override name = 'DatabaseTimeout';
  readonly code = 'DATABASE_TIMEOUT';
}

/**
 * Runs one request's database work within the deadline: past it the connections are dropped
 * (a black-holed socket would hold the pool for minutes) and `DatabaseTimeout` is thrown, while
 * the abandoned work settles in the background. A failure that broke a connection replaces the
 * client, so no later request meets that connection. PGlite runs in-process: none of this applies.
 */
export async function withDeadline<T>(db: Database, work: () => Promise<T>): Promise<T> {
  const pool = pools.get(db);
  if (!pool) return work();
  const startedOn = pool.current;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new DatabaseTimeout(`No answer from the database within ${pool.requestTimeoutMs} ms.`)),
      pool.requestTimeoutMs,
    );
  });
  const running = work();
  running.catch(() => {}); // settles after the deadline answered: nothing left to tell anyone
  try {
    return await Promise.race([running, deadline]);
  } catch (error) {
    if (brokeTheConnection(error)) pool.recycle(startedOn);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
