import { setTimeout as sleep } from 'node:timers/promises';
import type { Context } from 'aws-lambda';
import { type DatabaseConfig, type DatabaseHandle, openDatabase } from '#db/client.ts';
import { isDatabaseUnavailable } from '#db/errors.ts';
import { migrate } from '#db/migrate.ts';
import { asInvocation, databaseConfigForLambda, type LambdaContext } from './deps.ts';
import { createLogger, type Logger } from './http/log.ts';

export interface MigrationOptions {
  /** Milliseconds this invocation has left; retrying stops when too little remains. */
  remainingMs: () => number;
  logger: Logger;
  retryDelayMs?: number;
  open?: (config: DatabaseConfig) => Promise<DatabaseHandle>;
  migrationsFolder?: string;
}

/** Kept back so that the last attempt has time to finish before Lambda stops it. */
const LAST_ATTEMPT_MS = 30_000;

/**
 * Applies the committed migrations. A paused Aurora Serverless cluster takes ~15 s to resume,
 * longer than the 5 s connect timeout, so while the database is unavailable this retries for as
 * long as the invocation has time. Applying is idempotent: drizzle journals what it applied.
 */
export async function applyMigrations(config: DatabaseConfig, options: MigrationOptions) {
  const { remainingMs, logger, retryDelayMs = 5_000, open = openDatabase } = options;
  for (let attempt = 1; ; attempt++) {
    const handle = await open(config);
    try {
      await migrate(handle, options.migrationsFolder);
      logger('info', 'migrations applied', { attempt });
      return { attempts: attempt };
    } catch (error) {
      if (!isDatabaseUnavailable(error) || remainingMs() < retryDelayMs + LAST_ATTEMPT_MS) throw error;
      logger('warn', 'database unavailable; retrying migrations', { attempt, error });
    } finally {
      await handle.close().catch(() => {});
    }
    await sleep(retryDelayMs);
  }
}

/**
 * The deploy trigger's entry point (infra/constructs/migrations.ts): it runs before the API
 * functions are updated, with db/migrations copied beside the bundle, where db/migrate.ts looks.
 * A thrown error fails the deployment, which CloudFormation then rolls back.
 */
export function handler(
  _event: unknown,
  context: Pick<Context, 'getRemainingTimeInMillis'> & Partial<LambdaContext>,
) {
  return asInvocation(context, async () =>
    applyMigrations(await databaseConfigForLambda(), {
      remainingMs: () => context.getRemainingTimeInMillis(),
      logger: createLogger(),
    }),
  );
}
