import { tiers } from '#contract/tiers.ts';
import { databaseConfigFromEnv } from '#db/config.ts';
import type { DatabaseClient, DatabaseConfig } from '#db/database.ts';
import { openPostgres } from '#db/postgres-client.ts';
import { createLogger, invocation, type Logger } from './http/log.ts';
import type { WorkspaceLimits } from './http/workspace-limit.ts';

type PostgresConfig = Extract<DatabaseConfig, { kind: 'postgres' }>;

/** What every handler is built over; tests pass their own, Lambda gets `containerDeps()`. */
export interface Deps {
  database: DatabaseClient;
  logger: Logger;
  /** Each workspace held to its tier by the route functions (http/workspace-limit.ts); off when absent. */
  workspaceLimits?: WorkspaceLimits;
}

/**
 * In AWS the API functions connect as the app role with an IAM token (`DATABASE_IAM_USER`,
 * functions/database-token.ts); the migration function as master, with the password in Secrets
 * Manager (`DATABASE_SECRET_ARN`). Elsewhere `DATABASE_URL`.
 */
export async function databaseConfigForLambda(env = process.env): Promise<PostgresConfig> {
  if (env.DATABASE_IAM_USER) {
    const { databaseUrlWithToken } = await import('./database-token.ts');
    return { kind: 'postgres', url: await databaseUrlWithToken(env), poolMax: 1 };
  }
  if (!env.DATABASE_SECRET_ARN) {
    const config = databaseConfigFromEnv(env);
    // A function always has a server: the embedded database is the tools' and the tests'.
    if (config.kind !== 'postgres')
      throw new Error('Set DATABASE_URL, DATABASE_IAM_USER or DATABASE_SECRET_ARN.');
    return config;
  }
  const { username, password, host, port, dbname } = JSON.parse(await secretString(env.DATABASE_SECRET_ARN));
  // DATABASE_NAME: a branch preview's master connects to the branch's database (or the maintenance one).
  const database = env.DATABASE_NAME ?? dbname ?? 'postgres';
  const url = new URL(`postgres://${env.DATABASE_HOST ?? host}:${port ?? 5432}/${database}`);
  url.username = encodeURIComponent(username);
  url.password = encodeURIComponent(password);
  url.searchParams.set('sslmode', env.DATABASE_SSLMODE ?? 'verify-full');
  return { kind: 'postgres', url: url.toString(), poolMax: 1 };
}

/** The master secret, for the migration function only: imported when called, so API functions never load it. */
async function secretString(secretId: string): Promise<string> {
  const { SecretsManagerClient, GetSecretValueCommand } = await import('@aws-sdk/client-secrets-manager');
  const secret = await new SecretsManagerClient({}).send(new GetSecretValueCommand({ SecretId: secretId }));
  if (secret.SecretString === undefined) throw new Error('The database secret has no SecretString');
  return secret.SecretString;
}

/**
 * The deployed configuration, which also knows how to get a current URL when the server refuses
 * the credentials: a fresh token once the first has expired (IAM), or the rotated master password.
 */
export async function refreshingDatabaseConfig(env = process.env): Promise<PostgresConfig> {
  const config = await databaseConfigForLambda(env);
  if (!env.DATABASE_IAM_USER && !env.DATABASE_SECRET_ARN) return config;
  const refreshUrl = async () => (await databaseConfigForLambda(env)).url;
  return { ...config, refreshUrl };
}

let container: Promise<Deps> | undefined;

/** Built once per container, on the first invocation; a failed attempt is retried on the next. */
export function containerDeps(): Promise<Deps> {
  container ??= refreshingDatabaseConfig().then(
    (config) => ({ database: openPostgres(config), logger: createLogger(), workspaceLimits: { tiers } }),
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
