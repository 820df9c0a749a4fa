import type { Database, DatabaseClient, DatabaseConfig } from './database.ts';
import { openPostgres } from './postgres-client.ts';
import * as schema from './schema/index.ts';

export type {
  Database,
  DatabaseClient,
  DatabaseConfig,
  DatabaseHandle,
  RunOptions,
  Schema,
} from './database.ts';

export const DEFAULT_PGLITE_DIR = '.data/pglite';

/** `DATABASE_URL` selects a Postgres server; otherwise the embedded database under `.data/`. */
export function databaseConfigFromEnv(env: NodeJS.ProcessEnv = process.env): DatabaseConfig {
  if (env.DATABASE_URL) {
    const poolMax = env.DATABASE_POOL_MAX ? Number(env.DATABASE_POOL_MAX) : undefined;
    return { kind: 'postgres', url: env.DATABASE_URL, poolMax };
  }
  return { kind: 'pglite', dataDir: env.PGLITE_DATA_DIR ?? DEFAULT_PGLITE_DIR };
}

/** Opens a database without touching the network: postgres.js connects on first query, PGlite starts in the background. */
export async function openDatabase(config: DatabaseConfig): Promise<DatabaseClient> {
  if (config.kind === 'postgres') return openPostgres(config);
  // Loaded only when used, so Lambda bundles (Postgres only) leave PGlite's WASM out.
  const { PGlite } = await import('@electric-sql/pglite');
  const { drizzle: drizzlePglite } = await import('drizzle-orm/pglite');
  const client = new PGlite(config.dataDir);
  return embeddedClient(drizzlePglite({ client, schema }), config, () => client.close());
}

/** PGlite runs in this process: no connection to lose, no deadline to apply; the work simply runs. */
export function embeddedClient(
  db: Database,
  config: DatabaseConfig,
  close: () => Promise<void>,
): DatabaseClient {
  return { config, db, run: (work) => work(db), close };
}

/** The same client, with more to do once it is closed (drop a test database, release a lock). */
export function closingAlso(client: DatabaseClient, after: () => void | Promise<void>): DatabaseClient {
  return {
    config: client.config,
    get db() {
      return client.db;
    },
    run: (work, options) => client.run(work, options),
    close: () => client.close().finally(after),
  };
}

export { DatabaseTimeout, REQUEST_TIMEOUT_MS } from './postgres-client.ts';
