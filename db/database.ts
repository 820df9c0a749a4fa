// The database's types, apart from the code that opens one, so both clients can name them without a cycle.
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type * as schema from './schema/index.ts';

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
      /**
       * A current URL when the server refused the credentials (28P01, 28000) while connecting: a
       * rotated password. Called once per refusal; the client then reconnects with what it returns.
       */
      refreshUrl?: () => Promise<string>;
    }
  | { kind: 'pglite'; dataDir?: string /* omitted: in memory */ };

export interface RunOptions {
  /**
   * The work only reads (or may safely run twice): after its connection broke it runs once more on
   * a fresh one, within the same deadline. Other work is run again only when it failed while a
   * connection was being obtained, so nothing of it reached the database.
   */
  idempotent: boolean;
}

/**
 * One database, as the API uses it: `run` gives one request's work a Drizzle database within the
 * request deadline, replacing the connections after a failure broke them and retrying reads.
 */
export interface DatabaseClient {
  readonly config: DatabaseConfig;
  /** The database for work outside a request (tools, seeds, tests): no deadline, no retry. */
  readonly db: Database;
  run<T>(work: (db: Database) => Promise<T>, options: RunOptions): Promise<T>;
  close(): Promise<void>;
}

/** The name the tools and tests use for an open database. */
export type DatabaseHandle = DatabaseClient;
