import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import * as schema from './schema/index.ts';

export type Schema = typeof schema;
export type Database = PgDatabase<PgQueryResultHKT, Schema>;

export type DatabaseConfig =
  | { kind: 'postgres'; url: string; poolMax?: number }
  | { kind: 'pglite'; dataDir?: string /* omitted: in memory */ };

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
    const client = postgres(config.url, {
      max: config.poolMax ?? 1,
      prepare: false,
      idle_timeout: 20,
      connect_timeout: 5,
      max_lifetime: 60 * 30,
      onnotice: () => {},
      connection: { application_name: 'voice-agent-admin-api', statement_timeout: 10_000 },
    });
    return {
      db: drizzlePostgres({ client, schema }) as unknown as Database,
      config,
      close: () => client.end({ timeout: 5 }),
    };
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
