import { fileURLToPath } from 'node:url';
import type { PgliteDatabase } from 'drizzle-orm/pglite';
import type { PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import type { DatabaseHandle, Schema } from './client.ts';

/** Beside this module in the source tree; beside the bundle in Lambda (copied in by the stack). */
export const defaultMigrationsFolder = () =>
  process.env.MIGRATIONS_DIR ?? fileURLToPath(new URL('./migrations', import.meta.url));

/** The one way migrations are applied: the CLI, the local server, the tests and the deploy trigger. */
export async function migrate(handle: DatabaseHandle, migrationsFolder = defaultMigrationsFolder()) {
  // Each migrator wants its own driver's database type; `handle.config.kind` says which one `db` is.
  if (handle.config.kind === 'postgres') {
    const { migrate: migratePostgres } = await import('drizzle-orm/postgres-js/migrator');
    await migratePostgres(handle.db as unknown as PostgresJsDatabase<Schema>, { migrationsFolder });
  } else {
    const { migrate: migratePglite } = await import('drizzle-orm/pglite/migrator');
    await migratePglite(handle.db as unknown as PgliteDatabase<Schema>, { migrationsFolder });
  }
}
