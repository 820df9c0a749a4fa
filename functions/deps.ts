import { type Database, type DatabaseConfig, databaseConfigFromEnv, openDatabase } from '#db/client.ts';
import { createLogger, invocation, type Logger } from './http/log.ts';
import { getSecretString } from './secret.ts';

/** What every handler is built over; tests pass their own, Lambda gets `containerDeps()`. */
export interface Deps {
  db: Database;
  logger: Logger;
}

/**
 * In AWS the credentials live in Secrets Manager (the RDS-generated secret) and the host is the
 * RDS Proxy endpoint; elsewhere `DATABASE_URL` or the embedded database, as for every entry point.
 */
export async function databaseConfigForLambda(env = process.env): Promise<DatabaseConfig> {
  if (!env.DATABASE_SECRET_ARN) return databaseConfigFromEnv(env);
  // One signed request, not the SDK client: see functions/secret.ts (and docs/performance.md).
  const { username, password, host, port, dbname } = JSON.parse(
    await getSecretString(env.DATABASE_SECRET_ARN, env),
  );
  const url = new URL(`postgres://${env.DATABASE_HOST ?? host}:${port ?? 5432}/${dbname ?? 'postgres'}`);
  url.username = encodeURIComponent(username);
  url.password = encodeURIComponent(password);
  url.searchParams.set('sslmode', env.DATABASE_SSLMODE ?? 'verify-full');
  return { kind: 'postgres', url: url.toString(), poolMax: 1 };
}

let container: Promise<Deps> | undefined;

/** Built once per container, on the first invocation; a failed attempt is retried on the next. */
export function containerDeps(): Promise<Deps> {
  container ??= databaseConfigForLambda().then(
    async (config) => ({ db: (await openDatabase(config)).db, logger: createLogger() }),
    (error) => {
      container = undefined;
      throw error;
    },
  );
  return container;
}

/** What the entry point reads of Lambda's context object. */
export interface LambdaContext {
  awsRequestId: string;
}

let coldStart = true;

/** Runs one invocation: every line it logs carries its `awsRequestId` and whether it was the container's first. */
export function asInvocation<T>(context: Partial<LambdaContext> | undefined, work: () => Promise<T>) {
  const fields = { awsRequestId: context?.awsRequestId, coldStart };
  coldStart = false;
  return invocation.run(fields, work);
}

/** The deployed entry point: the same handler the tests build, over the container's deps. */
export function lambda<E, R>(
  build: (deps: Deps) => (event: E) => Promise<R>,
): (event: E, context?: LambdaContext) => Promise<R> {
  let built: Promise<(event: E) => Promise<R>> | undefined;
  return (event, context) =>
    asInvocation(context, async () => {
      built ??= containerDeps().then(build, (error) => {
        built = undefined;
        throw error;
      });
      return (await built)(event);
    });
}
