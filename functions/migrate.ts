import { setTimeout as sleep } from 'node:timers/promises';
import type { Context } from 'aws-lambda';
import { type DatabaseConfig, type DatabaseHandle, openDatabase } from '#db/client.ts';
import { brokeTheConnection, sqlState } from '#db/errors.ts';
import { defaultMigrationsFolder, type MigrationSession, migrate } from '#db/migrate.ts';
import { type ChangingStatement, changesToExisting, pendingMigrations } from '#db/migration-plan.ts';
import type { AppCredentials } from '#db/roles.ts';
import { SnapshotFailed, snapshotSettingsFromEnv, takeClusterSnapshot } from './cluster-snapshot.ts';
import { asInvocation, databaseConfigForLambda, type LambdaContext } from './deps.ts';
import { createLogger, type Logger } from './http/log.ts';

export interface MigrationOptions {
  /** Milliseconds this invocation has left; retrying stops when too little remains. */
  remainingMs: () => number;
  logger: Logger;
  retryDelayMs?: number;
  open?: (config: DatabaseConfig) => Promise<DatabaseHandle>;
  migrationsFolder?: string;
  /** The application role to create or refresh after the migrations (db/roles.ts). */
  appRole?: AppCredentials;
  session?: MigrationSession;
  /** Attempts that may end in a lock timeout before the deploy fails (default 3). */
  lockAttempts?: number;
  /**
   * Called before pending migrations that change existing tables (db/migration-plan.ts), with the
   * newest one's tag; a throw fails the run before any migration. Where the stage has it: a
   * cluster snapshot (functions/cluster-snapshot.ts).
   */
  snapshot?: (before: { tag: string; changes: readonly ChangingStatement[] }) => Promise<string>;
}

/** Kept back so that the last attempt has time to finish before Lambda stops it. */
const LAST_ATTEMPT_MS = 30_000;
const LOCK_NOT_AVAILABLE = '55P03';
/**
 * Worth another attempt: the connection broke, or the server was full, deadlocked or serialised.
 * Not 57014 (statement timeout): unlike an API query, a migration that ran out of time will run
 * out of time again, so the deploy fails at once with the statement's own error.
 */
const RETRYABLE_SQLSTATE = new Set(['53300', '40001', '40P01', LOCK_NOT_AVAILABLE]);

/**
 * Applies the committed migrations, then keeps the application role in shape. A paused Aurora
 * Serverless cluster takes ~15 s to resume, longer than the 5 s connect timeout, so while the
 * database is unavailable this retries for as long as the invocation has time; a lock it could not
 * get within the session's lock_timeout is retried a few times. Applying is idempotent: drizzle
 * journals what it applied, in one transaction.
 */
export async function applyMigrations(
  config: DatabaseConfig,
  options: MigrationOptions,
): Promise<{ attempts: number; snapshot?: string }> {
  const { remainingMs, logger, retryDelayMs = 5_000, open = openDatabase, lockAttempts = 3 } = options;
  let lockTimeouts = 0;
  // Decided once: a retry after the snapshot does not take another.
  let snapshotDone: { snapshot?: string } | undefined;
  for (let attempt = 1; ; attempt++) {
    const handle = await open(config);
    try {
      snapshotDone ??= await snapshotIfChanging(handle, options);
      await migrate(handle, options.migrationsFolder, { appRole: options.appRole, session: options.session });
      logger('info', 'migrations applied', { attempt, appRole: options.appRole?.username });
      return { attempts: attempt, ...snapshotDone };
    } catch (error) {
      if (error instanceof SnapshotFailed) throw error;
      const code = sqlState(error);
      if (code === LOCK_NOT_AVAILABLE) lockTimeouts++;
      const retryable =
        (brokeTheConnection(error) || RETRYABLE_SQLSTATE.has(code ?? '')) && lockTimeouts < lockAttempts;
      if (!retryable || remainingMs() < retryDelayMs + LAST_ATTEMPT_MS) throw error;
      logger('warn', 'migrations failed; retrying', { attempt, code, error });
    } finally {
      await handle.close().catch(() => {});
    }
    await sleep(retryDelayMs);
  }
}

/** Reads what will be applied; when it changes existing tables, has the snapshot taken first. */
async function snapshotIfChanging(
  handle: DatabaseHandle,
  options: MigrationOptions,
): Promise<{ snapshot?: string }> {
  if (!options.snapshot) return {};
  const { pending, firstRun } = await pendingMigrations(
    handle,
    options.migrationsFolder ?? defaultMigrationsFolder(),
  );
  // A database no migration ever ran on holds no table of ours to protect.
  const changes = firstRun ? [] : changesToExisting(pending);
  if (changes.length === 0) return {};
  const tag = pending.at(-1)?.tag ?? 'unknown';
  options.logger('info', 'pending migrations change existing tables: snapshot first', {
    tag,
    changes: changes.slice(0, 5),
  });
  try {
    return { snapshot: await options.snapshot({ tag, changes }) };
  } catch (error) {
    throw error instanceof SnapshotFailed ? error : new SnapshotFailed(String(error), { cause: error });
  }
}

/**
 * The deploy trigger's entry point (infra/constructs/migrations.ts): it runs before the API
 * functions are updated, with db/migrations copied beside the bundle, where db/migrate.ts looks.
 * It connects with the master secret (DATABASE_SECRET_ARN) and gives the app role (APP_IAM_USER)
 * its privileges and IAM database authentication, no password. Where the stage sets
 * SNAPSHOT_CLUSTER_ID, migrations that change existing tables wait for a cluster snapshot first.
 * A thrown error fails the deployment, which CloudFormation then rolls back.
 */
export function handler(
  _event: unknown,
  context: Pick<Context, 'getRemainingTimeInMillis'> & Partial<LambdaContext>,
) {
  return asInvocation(context, async () => {
    const appUser = process.env.APP_IAM_USER;
    const remainingMs = () => context.getRemainingTimeInMillis();
    const logger = createLogger();
    const snapshots = snapshotSettingsFromEnv();
    return applyMigrations(await databaseConfigForLambda(), {
      remainingMs,
      logger,
      appRole: appUser ? { username: appUser, iam: true } : undefined,
      snapshot: snapshots && (({ tag }) => takeClusterSnapshot(snapshots, { tag, remainingMs, logger })),
    });
  });
}
