import { connect, Socket } from 'node:net';
import postgres from 'postgres';
import type { SqlRunner, Statement } from './database.ts';
import { brokeTheConnection } from './errors.ts';

// The one module that relies on postgres.js beyond its documented surface (pinned to 3.4.9, with
// patches/postgres+3.4.9.patch): the `socket` hook, `Object.create` over its client, the codecs it
// keeps in `options`, and the patch's `describe: false`. test/db/postgres-driver.test.ts checks
// each of them and names the one an upgrade changed.

type SocketOptions = { host: string[]; port: number[]; path?: string | false };

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
 * (the same settings Drizzle's postgres-js driver makes, so the tools can wrap this client).
 */
function useTextCodecs(sql: postgres.Sql) {
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
const STATEMENT_OPTIONS = { simple: false, describe: false } as postgres.UnsafeQueryOptions;

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

export interface DriverSettings {
  /** Connections at most (a Lambda container serves one request at a time: 1). */
  poolMax: number;
  connectTimeoutSeconds: number;
  /** The server gives up on a statement after this. */
  statementTimeoutMs: number;
  applicationName: string;
  /** Idle connections close after this (0: never); default 20 s, before RDS Proxy would close them. */
  idleTimeoutSeconds?: number;
}

/**
 * One postgres.js client, the runner over it, and every socket it opened; once retired, it opens
 * none. After a socket error postgres.js 3.4 can leave a connection that never answers again
 * (porsager/postgres#1130), and its end() can let queued queries and reconnect timers reopen
 * connections: so a client that met trouble is retired whole, never reused (db/postgres-client.ts).
 */
export class PostgresDriver {
  /** The client with its transactions guarded (`held`): what Drizzle is given. */
  readonly sql: postgres.Sql;
  readonly runner: SqlRunner;
  readonly #raw: postgres.Sql;
  readonly #sockets = new Set<Socket>();
  #retired = false;

  constructor(
    readonly url: string,
    settings: DriverSettings,
  ) {
    this.#raw = postgres(url, {
      max: settings.poolMax,
      prepare: false,
      idle_timeout: settings.idleTimeoutSeconds ?? 20,
      connect_timeout: settings.connectTimeoutSeconds,
      max_lifetime: 60 * 30,
      onnotice: () => {},
      // No array-type lookup on each new connection: no answer of the API's is a Postgres array,
      // and postgres.js 3.4.9 leaves that lookup's failure unhandled when the connection is
      // destroyed during it, which ends a Lambda process (docs/decisions.md).
      fetch_types: false,
      connection: {
        application_name: settings.applicationName,
        statement_timeout: settings.statementTimeoutMs,
      },
      socket: (o: SocketOptions) => {
        const socket = this.#retired ? refused() : socketFor(o);
        this.#sockets.add(socket);
        socket.once('close', () => this.#sockets.delete(socket));
        return socket;
      },
    } as postgres.Options<Record<string, never>>);
    useTextCodecs(this.#raw);
    this.sql = guardedClient(this.#raw);
    this.runner = runnerOver(this.sql, false);
  }

  /** Stops it for good: its queries fail, and no socket of it is opened again. */
  async retire(seconds: number) {
    this.#retired = true;
    await this.#raw.end({ timeout: seconds }).catch(() => {});
    // Only once postgres.js has said goodbye: a socket cut under its TLS layer while it still
    // writes is an uncaught EBADF. Then what a black hole still holds goes too.
    setTimeout(() => {
      for (const socket of this.#sockets) socket.destroy();
    }, 1_000).unref();
  }
}
