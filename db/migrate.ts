import { fileURLToPath } from 'node:url';
import type { PgliteDatabase } from 'drizzle-orm/pglite';
import type { PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import { type DatabaseHandle, openDatabase, type Schema } from './client.ts';
import { type AppCredentials, ensureAppRole } from './roles.ts';

/** Beside this module in the source tree; beside the bundle in Lambda (copied in by the stack). */
export const defaultMigrationsFolder = () =>
  process.env.MIGRATIONS_DIR ?? fileURLToPath(new URL('./migrations', import.meta.url));

/**
 * The session migrations run in, not the API's: a statement may run for minutes (an index on a
 * big table) where the API's 6 s would fail the deploy, while waiting for a lock is cut short, so
 * that a migration queued behind a long transaction does not queue every API query behind it.
 */
export interface MigrationSession {
  readonly statementTimeoutMs: number;
  readonly lockTimeoutMs: number;
}
export const MIGRATION_SESSION: MigrationSession = { statementTimeoutMs: 10 * 60_000, lockTimeoutMs: 5_000 };

/** `url` with the session's settings as startup parameters (postgres.js sends unknown query keys). */
export function migrationUrl(url: string, session: MigrationSession = MIGRATION_SESSION): string {
  const target = new URL(url);
  target.searchParams.set('statement_timeout', String(session.statementTimeoutMs));
  target.searchParams.set('lock_timeout', String(session.lockTimeoutMs));
  return target.toString();
}

export interface MigrateOptions {
  /** After the migrations: create or refresh the application role (db/roles.ts) with these credentials. */
  readonly appRole?: AppCredentials;
  readonly session?: MigrationSession;
}

/**
 * The one way migrations are applied: the CLI, the local server, the tests and the deploy trigger.
 * On Postgres they run on a connection of their own with the migration session settings, whatever
 * the pool `handle` was opened with.
 */
export async function migrate(
  handle: DatabaseHandle,
  migrationsFolder = defaultMigrationsFolder(),
  options: MigrateOptions = {},
) {
  // Each migrator wants its own driver's database type; `handle.config.kind` says which one `db` is.
  if (handle.config.kind === 'postgres') {
    const { migrate: migratePostgres } = await import('drizzle-orm/postgres-js/migrator');
    const own = await openDatabase({
      ...handle.config,
      url: migrationUrl(handle.config.url, options.session),
      poolMax: 1,
    });
    try {
      await migratePostgres(own.db as unknown as PostgresJsDatabase<Schema>, { migrationsFolder });
      if (options.appRole) await ensureAppRole(own.db, options.appRole);
    } finally {
      await own.close();
    }
  } else {
    const { migrate: migratePglite } = await import('drizzle-orm/pglite/migrator');
    await migratePglite(handle.db as unknown as PgliteDatabase<Schema>, { migrationsFolder });
    // PGlite is single-user: there is no role to keep.
  }
}
