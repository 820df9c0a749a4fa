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
    }
  | { kind: 'pglite'; dataDir?: string /* omitted: in memory */ };

export interface DatabaseHandle {
  readonly db: Database;
  readonly config: DatabaseConfig;
  close(): Promise<void>;
}
