import { connect } from 'node:net';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import * as schema from './schema/index.ts';

export type Schema = typeof schema;
export type Database = PgDatabase<PgQueryResultHKT, Schema>;

export type DatabaseConfig =
  | {
      kind: 'postgres';
      url: string;
      poolMax?: number;
      /** How long one request may wait on the database before it is answered 503 (default 7 s). */
      requestTimeoutMs?: number;
      /** How long establishing a connection may take (default 5 s). */
      connectTimeoutSeconds?: number;
    }
  | { kind: 'pglite'; dataDir?: string /* omitted: in memory */ };

/** Below the functions' 10 s timeout, with room for the answer: a hung database is a 503, not a timeout. */
export const REQUEST_TIMEOUT_MS = 7_000;
/** How long a replaced client's healthy connections may finish their work before they are cut. */
const DRAIN_SECONDS = 5;

export interface DatabaseHandle {
  readonly db: Database;
  readonly config: DatabaseConfig;
  close(): Promise<void>;
}

export const DEFAULT_PGLITE_DIR = '.data/pglite';

/** `DATABASE_URL` selects a Postgres server; otherwise the embedded database under `.data/`. */
export function databaseConfigFromEnv(env: NodeJS.ProcessEnv = process.env): DatabaseConfig {
  if (env.DATABASE_URL) {
    const poolMax = env.DATABASE_POOL_MAX ? Number(env.DATABASE_POOL_MAX) : undefined;
    return { kind: 'postgres', url: env.DATABASE_URL, poolMax };
  }
  return { kind: 'pglite', dataDir: env.PGLITE_DATA_DIR ?? DEFAULT_PGLITE_DIR };
}

/**
 * Opens a database without touching the network: postgres.js connects on first query, PGlite
 * starts in the background. Lambda settings by default: one connection per container (the
 * container serves one request at a time), idle connections closed before RDS Proxy would, and
 * no server-side prepared statements so the proxy never pins a connection.
 */
export async function openDatabase(config: DatabaseConfig): Promise<DatabaseHandle> {
  if (config.kind === 'postgres') {
    const requestTimeoutMs = config.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
    const first = postgres(config.url, {
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
      socket: socketFor,
    } as postgres.Options<Record<string, never>>);
    const pool = new RecyclingPool(first, requestTimeoutMs);
    const db = drizzlePostgres({ client: pool.client, schema }) as unknown as Database;
    pools.set(db, pool);
    return { db, config, close: () => pool.end() };
  }
  // Loaded only when used, so Lambda bundles (Postgres only) leave PGlite's WASM out.
  const { PGlite } = await import('@electric-sql/pglite');
  const { drizzle: drizzlePglite } = await import('drizzle-orm/pglite');
  const client = new PGlite(config.dataDir);
  return {
    db: drizzlePglite({ client, schema }) as unknown as Database,
    config,
    close: () => client.close(),
  };
}

/**
 * postgres.js's socket, except that a connection closed before the server sent a byte is an
 * error: postgres.js would otherwise reconnect in a tight loop and never answer the query.
 */
function socketFor(options: { host: string[]; port: number[]; path?: string | false }) {
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

/**
 * A postgres.js client that can be swapped for a fresh one. After a socket error postgres.js 3.4
 * can leave a connection that never answers again (porsager/postgres#1130), so after any sign of
 * trouble the whole client is replaced; drizzle holds `client`, which always forwards to the
 * current one. The replaced client lets its healthy queries finish, then is cut.
 */
class RecyclingPool {
  readonly client: postgres.Sql;
  #current: postgres.Sql;
  readonly #draining = new Set<Promise<void>>();

  constructor(
    first: postgres.Sql,
    readonly requestTimeoutMs: number,
  ) {
    this.#current = first;
    this.client = new Proxy(first, {
      get: (_, key) => Reflect.get(this.#current, key),
      apply: (_, __, args) => Reflect.apply(this.#current as never, undefined, args),
    });
  }

  /** Drops every connection: the next statement opens a new one on a new client. */
  recycle() {
    const old = this.#current;
    // The same parsed options, so the type parsers drizzle installed carry over.
    this.#current = postgres(old.options as never);
    const drained = old.end({ timeout: DRAIN_SECONDS }).catch(() => {});
    this.#draining.add(drained);
    void drained.then(() => this.#draining.delete(drained));
  }

  async end() {
    await Promise.all([this.#current.end({ timeout: DRAIN_SECONDS }), ...this.#draining]);
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
 * the abandoned work settles in the background. PGlite runs in-process and needs none of this.
 */
export async function withDeadline<T>(db: Database, work: () => Promise<T>): Promise<T> {
  const pool = pools.get(db);
  if (!pool) return work();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      pool.recycle();
      reject(new DatabaseTimeout(`No answer from the database within ${pool.requestTimeoutMs} ms.`));
    }, pool.requestTimeoutMs);
  });
  const running = work();
  running.catch(() => {}); // settles after the deadline answered: nothing left to tell anyone
  try {
    return await Promise.race([running, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** After a connection failed: replace the client, so no request meets a broken connection again. */
export function recycleConnections(db: Database) {
  pools.get(db)?.recycle();
}
