/**
 * A branch preview's own database on the shared preview cluster, and its application role: the
 * SQL of the custom resource in functions/preview-database.ts. Each step checks before it acts,
 * so a re-run after a half-finished attempt converges instead of failing.
 */
import postgres from 'postgres';

export interface PreviewDatabaseSpec {
  /** The branch's database, e.g. `preview_feature_x`. */
  readonly database: string;
  /** Its application role. In AWS it logs in by IAM (the migration grants it `rds_iam`), no password. */
  readonly role: string;
  /** Local servers and tests only: a password to log in with. */
  readonly password?: string;
}

/** Role and database names are interpolated as identifiers: nothing else gets that far. */
const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;
function identifier(name: string, what: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(`Unusable ${what} name ${JSON.stringify(name)}`);
  return `"${name}"`;
}

/** The rotation clone multi-user rotation would add; dropped with the role if it ever exists. */
const cloneOf = (role: string) => `${role}_clone`;

type Sql = postgres.Sql<Record<string, never>>;
const connect = (masterUrl: string): Sql =>
  postgres(masterUrl, { max: 1, onnotice: () => {}, prepare: false });

/**
 * `masterUrl` is the master user on the cluster's maintenance database. CREATE DATABASE cannot
 * run in a transaction, so each statement is its own; the checks make the order safe to repeat.
 */
export async function createPreviewDatabase(masterUrl: string, spec: PreviewDatabaseSpec): Promise<void> {
  const database = identifier(spec.database, 'database');
  const role = identifier(spec.role, 'role');
  const sql = connect(masterUrl);
  try {
    const [roleRow] = await sql`select 1 as found from pg_roles where rolname = ${spec.role}`;
    if (!roleRow) {
      await sql.unsafe(`create role ${role} login nosuperuser nocreatedb nocreaterole noinherit`);
    }
    if (spec.password !== undefined) {
      // Utility statements take no parameters: the server quotes the password itself.
      const [statement] = await sql<{ text: string }[]>`
        select format('alter role %I with login password %L', ${spec.role}::text, ${spec.password}::text) as text`;
      if (statement) await sql.unsafe(statement.text);
    }
    const [databaseRow] = await sql`select 1 as found from pg_database where datname = ${spec.database}`;
    if (!databaseRow) await sql.unsafe(`create database ${database}`);
    // PUBLIC may connect to a new database by default: then every other branch's role could.
    await sql.unsafe(`revoke all on database ${database} from public`);
    await sql.unsafe(`grant connect on database ${database} to ${role}`);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** Drops the database even while sessions (a warm function, an operator's psql) are connected. */
export async function dropPreviewDatabase(
  masterUrl: string,
  spec: Pick<PreviewDatabaseSpec, 'database' | 'role'>,
): Promise<void> {
  const database = identifier(spec.database, 'database');
  const role = identifier(spec.role, 'role');
  const clone = identifier(cloneOf(spec.role), 'role');
  const sql = connect(masterUrl);
  try {
    await sql.unsafe(`drop database if exists ${database} with (force)`);
    // The role's grants lived on the database just dropped; nothing else of it is left to own.
    await sql.unsafe(`drop role if exists ${clone}`);
    await sql.unsafe(`drop role if exists ${role}`);
  } finally {
    await sql.end({ timeout: 5 });
  }
}
