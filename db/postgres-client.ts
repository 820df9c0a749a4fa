import { connect, Socket } from 'node:net';
import postgres from 'postgres';
import type { DatabaseClient, DatabaseConfig, Driver, RunOptions, SqlRunner, Statement } from './database.ts';
import { brokeTheConnection, failurePhase, refusedTheCredentials } from './errors.ts';

/** Below the functions' 10 s timeout, with room for the answer: a hung database is a 503, not a timeout. */
export const REQUEST_TIMEOUT_MS = 7_000;
/** How many times a read runs again on a fresh connection, within its one deadline. */
const READ_REPEATS = 2;
/** How long close() lets queries finish before cutting the connections. */
const CLOSE_SECONDS = 5;

type PostgresConfig = Extract<DatabaseConfig, { kind: 'postgres' }>;
type SocketOptions = { host: string[]; port: number[]; path?: string | false };

/** A request that waited on the database past its deadline. */
export class DatabaseTimeout extends Error {
  override name = 'DatabaseTimeout';
  readonly code = 'DATABASE_TIMEOUT';
}

/**
 * postgres.js's socket, with two differences. A connection closed before the server sent a byte
 * is an error: postgres.js would otherwise reconnect in a tight loop and never answer the query
 * (test/hardening/postgres-driver.test.ts shows it). And the socket carries its host name, from
 * which postgres.js takes the TLS server name (SNI): it sets it only on sockets it opens itself.
 */
function socketFor(options: SocketOptions) {
  const host = options.host[0] ?? 'localhost';
  const socket = options.path ? connect(options.path) : connect(options.port[0] ?? 5432, host);
  if (!options.path) Object.assign(socket, { host });
  socket.once('end', () => {
    if (socket.bytesRead > 0) return;
    const error = new Error('The database closed the connection without answering.');
    socket.destroy(Object.assign(error, { code: 'CONNECTION_CLOSED' }));
  });
  return socket;
}

type Scope = (sql: postgres.TransactionSql) => unknown;

/**
 * Inside a transaction, a failure that lost the connection is not handed back to postgres.js:
 * its transaction scope would send ROLLBACK on the connection it has already let go of, and the
 * write to a socket it has set to null is an uncaught TypeError that ends the process (postgres.js
 * 3.4.9; test/hardening/chaos.test.ts meets it). The scope is left pending instead; `begin` itself
 * rejects as soon as the connection closes, and the server rolled the transaction back already.
 */
const held =
  (scope: Scope): Scope =>
  async (sql) => {
    try {
      return await scope(guardedScope(sql));
    } catch (error) {
      if (brokeTheConnection(error)) return new Promise<never>(() => {});
      throw error;
    }
  };

const lastIsScope = (args: unknown[]) => [...args.slice(0, -1), held(args.at(-1) as Scope)];

function guardedScope(sql: postgres.TransactionSql): postgres.TransactionSql {
  const savepoint = (...args: unknown[]) =>
    (sql.savepoint as (...a: unknown[]) => unknown)(...lastIsScope(args));
  return Object.create(sql, { savepoint: { value: savepoint } });
}

/** postgres.js's client, whose transactions are `held`: what the runner and Drizzle are given. */
function guardedClient(sql: postgres.Sql): postgres.Sql {
  const begin = (...args: unknown[]) => (sql.begin as (...a: unknown[]) => unknown)(...lastIsScope(args));
  return Object.create(sql, { begin: { value: begin } });
}

/**
 * The API's codecs: timestamps stay Postgres's text and JSON parameters arrive already serialised
 * (the same settings Drizzle's postgres-js driver makes, so the tools can wrap this client). The
 * bench's baselines use it too, so that they run the API's statements the same way.
 */
export function useTextCodecs(sql: postgres.Sql) {
  const asIs = (value: unknown) => value;
  type Codecs = Record<string, unknown>;
  const { parsers, serializers } = sql.options as unknown as { parsers: Codecs; serializers: Codecs };
  for (const type of ['1184', '1082', '1083', '1114', '1182', '1185', '1115', '1231']) {
    parsers[type] = asIs;
    serializers[type] = asIs;
  }
  serializers['114'] = asIs;
  serializers['3802'] = asIs;
}

/**
 * Statements straight to postgres.js: the text and its values as parameters, an unnamed statement
 * (named ones were measured and bought nothing here; docs/decisions.md, "Data"). Always the
 * extended protocol, which takes one statement per text: postgres.js would send a text without
 * parameters as a simple query, which runs as many as it holds.
 *
 * And one flight per statement (Parse, Describe, Bind, Execute, Sync): `describe: false` is this
 * project's patch to postgres.js (patches/postgres+3.4.9.patch). Unpatched, it asks for the
 * parameters' types first and sends Bind only once they are back: a second round trip (a hop
 * through RDS Proxy, in AWS), whose write also waits for a busy event loop. Postgres types each
 * parameter from its context, as it types a literal. The types only ever chose a serialiser, and
 * the values here are scalars (strings, numbers, booleans, null: `fetch_types` is off, so
 * postgres.js could not serialise an array anyway), sent as the same text either way with the
 * codecs above.
 */
export const STATEMENT_OPTIONS = { simple: false, describe: false } as postgres.UnsafeQueryOptions;

function runnerOver(sql: postgres.Sql | postgres.TransactionSql, inTransaction: boolean): SqlRunner {
  return {
    inTransaction,
    rows: <T>(statement: Statement) =>
      sql.unsafe(
        statement.text,
        statement.values as postgres.ParameterOrJSON<never>[],
        STATEMENT_OPTIONS,
      ) as unknown as Promise<T[]>,
    transaction: <T>(work: (tx: SqlRunner) => Promise<T>) => {
      const scope = (tx: postgres.TransactionSql) => work(runnerOver(tx, true));
      return (
        inTransaction ? (sql as postgres.TransactionSql).savepoint(scope) : (sql as postgres.Sql).begin(scope)
      ) as Promise<T>;
    },
  };
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
 * One postgres.js client, the runner over it, and every socket it opened; once
 * retired, it opens none. After a socket error postgres.js 3.4 can leave a connection that never
 * answers again (porsager/postgres#1130), and its end() can let queued queries and reconnect
 * timers reopen connections: so a client that met trouble is retired whole, never reused.
 */
class Generation {
  readonly sql: postgres.Sql;
  /** The client with its transactions guarded (`held`). */
  readonly guarded: postgres.Sql;
  readonly runner: SqlRunner;
  readonly #sockets = new Set<Socket>();
  #retired = false;

  constructor(
    readonly url: string,
    options: postgres.Options<Record<string, never>>,
  ) {
    this.sql = postgres(url, {
      ...options,
      socket: (o: SocketOptions) => {
        const socket = this.#retired ? refused() : socketFor(o);
        this.#sockets.add(socket);
        socket.once('close', () => this.#sockets.delete(socket));
        return socket;
      },
    } as postgres.Options<Record<string, never>>);
    useTextCodecs(this.sql);
    this.guarded = guardedClient(this.sql);
    this.runner = runnerOver(this.guarded, false);
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

/**
 * The API's Postgres client, with Lambda settings by default: one connection per container (the
 * container serves one request at a time), idle connections closed before RDS Proxy would, unnamed
 * statements (docs/decisions.md, "Data"). `run` applies the request
 * deadline, replaces the postgres.js client after a failure that left no usable connection, and
 * runs reads (and work that never reached the server) once more on the fresh one.
 */
export class PostgresClient implements DatabaseClient {
  readonly #options: postgres.Options<Record<string, never>>;
  readonly #requestTimeoutMs: number;
  #current: Generation;
  #replacing: Promise<boolean> | undefined;

  constructor(readonly config: PostgresConfig) {
    this.#requestTimeoutMs = config.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
    this.#options = {
      max: config.poolMax ?? 1,
      prepare: false,
      idle_timeout: 20,
      connect_timeout: config.connectTimeoutSeconds ?? 5,
      max_lifetime: 60 * 30,
      onnotice: () => {},
      // No array-type lookup on each new connection: no answer of the API's is a Postgres array,
      // and postgres.js 3.4.9 leaves that lookup's failure unhandled when the connection is
      // destroyed during it, which ends a Lambda process (docs/decisions.md).
      fetch_types: false,
      // The server gives up on a statement before the request's deadline does.
      connection: {
        application_name: 'voice-agent-admin-api',
        statement_timeout: Math.max(1_000, this.#requestTimeoutMs - 1_000),
      },
    } as postgres.Options<Record<string, never>>;
    this.#current = new Generation(config.url, this.#options);
  }

  get sql(): SqlRunner {
    return this.#current.runner;
  }

  get driver(): Driver {
    return { kind: 'postgres', sql: this.#current.guarded };
  }

  /**
   * Runs one request's database work within the deadline: past it the connections are dropped (a
   * black-holed socket would hold the pool for minutes) and `DatabaseTimeout` is thrown, while the
   * abandoned work settles in the background.
   */
  async run<T>(work: (sql: SqlRunner) => Promise<T>, { repeatable }: RunOptions): Promise<T> {
    let using = this.#current;
    let expired = false;
    const attempts = (async () => {
      let repeats = 0;
      let renewed = false;
      for (;;) {
        const generation = this.#current;
        using = generation;
        try {
          return await work(generation.runner);
        } catch (error) {
          if (!brokeTheConnection(error)) throw error;
          const newUrl = await this.#replace(generation, error);
          // Again on the fresh client: a read (twice at most: under repeated kills the fresh
          // connection can be ended too), or once work of which nothing reached the server; and
          // once more with the credentials refreshUrl gave (the repeat may be what met them).
          const mayRepeat = repeatable || failurePhase(error) === 'connecting';
          if (expired || !mayRepeat) throw error;
          if (newUrl && !renewed) renewed = true;
          else if (++repeats > (repeatable ? READ_REPEATS : 1)) throw error;
        }
      }
    })();
    attempts.catch(() => {}); // settles after the deadline answered: nothing left to tell anyone
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        expired = true;
        const error = new DatabaseTimeout(`No answer from the database within ${this.#requestTimeoutMs} ms.`);
        void this.#replace(using, error);
        reject(error);
      }, this.#requestTimeoutMs);
    });
    try {
      return await Promise.race([attempts, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Replaces `generation` by a new client, whose first statement opens a fresh connection. Only if
   * it is still the current one, so a burst of failures replaces it once, not once each. After
   * refused credentials the new client uses the URL `refreshUrl` gives (a rotated password): true
   * when that URL is a new one.
   */
  #replace(generation: Generation, error: unknown): Promise<boolean> {
    if (generation !== this.#current) return this.#replacing ?? Promise.resolve(false);
    this.#replacing ??= (async () => {
      let url = generation.url;
      if (this.config.refreshUrl && refusedTheCredentials(error)) {
        url = await this.config.refreshUrl().catch(() => url);
      }
      this.#current = new Generation(url, this.#options);
      void generation.retire(0);
      return url !== generation.url;
    })().finally(() => {
      this.#replacing = undefined;
    });
    return this.#replacing;
  }

  close() {
    return this.#current.retire(CLOSE_SECONDS);
  }
}

export function openPostgres(config: PostgresConfig): DatabaseClient {
  return new PostgresClient(config);
}
