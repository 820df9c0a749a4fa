// The database's types, apart from the code that opens one, so both clients can name them without a cycle.
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type { Sql } from 'sql-template-tag';
import type * as schema from './schema/index.ts';

export type Schema = typeof schema;
/** Drizzle over either driver: the tools', seeds' and tests' query builder (never a handler's). */
export type Database = PgDatabase<PgQueryResultHKT, Schema>;
/** A statement with its parameters, written with sql-template-tag's `sql`. */
export type Statement = Sql;

export type DatabaseConfig =
  | {
      kind: 'postgres';
      url: string;
      poolMax?: number;
      /** How long one request may wait on the database before it is answered 503 (default 7 s). */
      requestTimeoutMs?: number;
      /** How long establishing a connection may take (default 5 s). */
      connectTimeoutSeconds?: number;
      /**
       * A current URL when the server refused the credentials (28P01, 28000) while connecting: a
       * rotated password. Called once per refusal; the client then reconnects with what it returns.
       */
      refreshUrl?: () => Promise<string>;
    }
  | { kind: 'pglite'; dataDir?: string /* omitted: in memory */ };

/**
 * What the API's statements run on: the driver itself, no query builder (the handlers' bundles
 * stay small; docs/performance.md). Timestamps come back as Postgres's text, as through Drizzle.
 */
export interface SqlRunner {
  /** The statement's rows. */
  rows<T = Record<string, unknown>>(statement: Statement): Promise<T[]>;
  /** `work` in a transaction; inside one, in a savepoint of it (a failed statement then poisons only the savepoint). */
  transaction<T>(work: (tx: SqlRunner) => Promise<T>): Promise<T>;
  readonly inTransaction: boolean;
}

export interface RunOptions {
  /**
   * The work only reads (or may safely run twice): after its connection broke it runs once more on
   * a fresh one, within the same deadline. Other work is run again only when it failed while a
   * connection was being obtained, so nothing of it reached the database.
   */
  repeatable: boolean;
}

/** The driver under a client, for whoever wraps it (Drizzle, for the tools). */
export type Driver =
  | { kind: 'postgres'; sql: import('postgres').Sql }
  | { kind: 'pglite'; client: import('@electric-sql/pglite').PGlite };

/**
 * One database, as the API uses it: `run` gives one request's work a runner within the request
 * deadline, replacing the connections after a failure broke them and retrying reads.
 */
export interface DatabaseClient {
  readonly config: DatabaseConfig;
  /** A runner for work outside a request (tools, seeds, tests): no deadline, no retry. */
  readonly sql: SqlRunner;
  /** The current driver (it changes when a broken one is replaced). */
  readonly driver: Driver;
  run<T>(work: (sql: SqlRunner) => Promise<T>, options: RunOptions): Promise<T>;
  close(): Promise<void>;
}

/** An open database as the tools and tests use it: the client, and Drizzle over it. */
export interface DatabaseHandle extends DatabaseClient {
  /** Drizzle over the current driver: no deadline, no retry. */
  readonly db: Database;
}
