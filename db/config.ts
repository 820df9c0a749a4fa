import type { DatabaseConfig } from './database.ts';

export const DEFAULT_PGLITE_DIR = '.data/pglite';

/** `DATABASE_URL` selects a Postgres server; otherwise the embedded database under `.data/`. */
export function databaseConfigFromEnv(env: NodeJS.ProcessEnv = process.env): DatabaseConfig {
  if (env.DATABASE_URL) {
    const poolMax = env.DATABASE_POOL_MAX ? Number(env.DATABASE_POOL_MAX) : undefined;
    return { kind: 'postgres', url: env.DATABASE_URL, poolMax };
  }
  return { kind: 'pglite', dataDir: env.PGLITE_DATA_DIR ?? DEFAULT_PGLITE_DIR };
}

/** Where the data lives, for humans: never the password. */
export function describeDatabase(config: DatabaseConfig): string {
  if (config.kind === 'pglite') return `embedded database in ${config.dataDir || 'memory'}`;
  const url = new URL(config.url);
  return `database postgres://${url.host}${url.pathname}`;
}
