/**
 * The custom resource behind every branch preview's own database on the shared preview cluster
 * (infra/constructs/preview-database.ts, run by CDK's `Provider` before the migration trigger).
 * Create and Update: the database and its app role exist (no password: the migration grants it
 * `rds_iam`, and the functions sign IAM tokens), and only that role (and the master) may CONNECT. Delete: the database goes with
 * every session still open on it (`WITH (FORCE)`), then the role. The SQL: db/preview-databases.ts.
 */
import { createPreviewDatabase, dropPreviewDatabase } from '#db/preview-databases.ts';
import { databaseConfigForLambda } from './deps.ts';
import { createLogger } from './http/log.ts';

/** What CloudFormation sends through the Provider framework (only the fields read here). */
export interface PreviewDatabaseEvent {
  readonly RequestType: 'Create' | 'Update' | 'Delete';
  readonly PhysicalResourceId?: string;
  readonly ResourceProperties: { readonly DatabaseName: string; readonly RoleName: string };
  readonly OldResourceProperties?: { readonly DatabaseName?: string };
}

/**
 * The Provider's onEvent handler. The physical id is the database name: a change of name is a
 * replacement, after which CloudFormation sends Delete for the old id. The master connection comes
 * from DATABASE_SECRET_ARN (the base's master secret) to its maintenance database.
 */
export async function handler(event: PreviewDatabaseEvent) {
  const logger = createLogger();
  const master = await databaseConfigForLambda();
  const { DatabaseName, RoleName: username } = event.ResourceProperties;
  if (event.RequestType === 'Delete') {
    // A physical id that is no database name (the framework's marker after a failed create) drops ours.
    const physical = event.PhysicalResourceId ?? '';
    const database = /^[a-z_][a-z0-9_]{0,62}$/.test(physical) ? physical : DatabaseName;
    await dropPreviewDatabase(master.url, { database, role: username });
    logger('info', 'preview database dropped', { database });
    return { PhysicalResourceId: database };
  }
  await createPreviewDatabase(master.url, { database: DatabaseName, role: username });
  logger('info', 'preview database ready', { database: DatabaseName, role: username });
  return { PhysicalResourceId: DatabaseName, Data: { DatabaseName, Username: username } };
}
