/**
 * The application's database role: what the API functions, the authorizer and the admin function
 * connect as. It may run the DML the app's statements need on the app's tables, and the functions
 * they call (APP_FUNCTIONS), and nothing else: no DDL, no TRUNCATE, no DELETE where the app never deletes, no view of the migration journal.
 * The migration function (connected as the master user) keeps it in this shape on every deploy.
 */
import { getTableName, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { Database } from './database.ts';
import { rowsOf } from './queries/rows.ts';
import {
  agentChanges,
  agents,
  agentVersions,
  apiKeys,
  conversations,
  events,
  idempotencyKeys,
  ledgerBalances,
  ledgerEntries,
  ledgerUsageAgentDaily,
  ledgerUsageQuarterHourly,
  ledgerUsageReasonQuarterHourly,
  persons,
  sessions,
  themes,
  webhookAttempts,
  webhookDeliveries,
  webhookEndpoints,
  workspaceLimits,
  workspaces,
} from './schema/index.ts';

export type TablePrivilege = 'SELECT' | 'INSERT' | 'UPDATE' | 'DELETE';

/**
 * Every table of the schema and what the app does to it (db/queries, db/seed). A table missing
 * here is unreachable for the app (test/db/app-role.test.ts fails on it, so a new table is a
 * decision, not an accident).
 */
export const APP_PRIVILEGES: ReadonlyArray<readonly [PgTable, readonly TablePrivilege[]]> = [
  // UPDATE: the admin function's tier change.
  [workspaces, ['SELECT', 'INSERT', 'UPDATE']],
  [themes, ['SELECT', 'INSERT']],
  // lastUsedAt on every authorisation, revokedAt on revoke.
  [apiKeys, ['SELECT', 'INSERT', 'UPDATE']],
  // UPDATE: PATCH, new versions, publish, archive and unarchive move the agent row.
  [agents, ['SELECT', 'INSERT', 'UPDATE']],
  // No UPDATE: a version, once written, never changes (a published one is immutable).
  [agentVersions, ['SELECT', 'INSERT']],
  // UPDATE: the session write path touches a person seen again, a conversation's last session end,
  // and a session's status (db/queries/session-writes.ts).
  [persons, ['SELECT', 'INSERT', 'UPDATE']],
  [conversations, ['SELECT', 'INSERT', 'UPDATE']],
  [sessions, ['SELECT', 'INSERT', 'UPDATE']],
  [ledgerEntries, ['SELECT', 'INSERT']],
  // Kept by the ledger's trigger as the app books entries (an upsert); UPDATE also sets the threshold.
  [ledgerBalances, ['SELECT', 'INSERT', 'UPDATE']],
  [ledgerUsageQuarterHourly, ['SELECT', 'INSERT', 'UPDATE']],
  [ledgerUsageAgentDaily, ['SELECT', 'INSERT', 'UPDATE']],
  [ledgerUsageReasonQuarterHourly, ['SELECT', 'INSERT', 'UPDATE']],
  // The outbox: written with each change; UPDATE marks an event published (the relay), DELETE
  // purges published ones past the retention window (the scheduled sweep).
  [events, ['SELECT', 'INSERT', 'UPDATE', 'DELETE']],
  // Each route request takes from its workspace's bucket (db/queries/workspace-limits.ts).
  [workspaceLimits, ['SELECT', 'INSERT', 'UPDATE']],
  // INSERT … ON CONFLICT DO UPDATE, the stored response, and the delete of a failed attempt.
  [idempotencyKeys, ['SELECT', 'INSERT', 'UPDATE', 'DELETE']],
  // The audit trail is append-only.
  [agentChanges, ['SELECT', 'INSERT']],
  // Webhooks: DELETE /webhook-endpoints/{id} deletes (its deliveries and attempts by cascade);
  // the worker updates a delivery per attempt and the endpoint's health; attempts are append-only.
  [webhookEndpoints, ['SELECT', 'INSERT', 'UPDATE', 'DELETE']],
  [webhookDeliveries, ['SELECT', 'INSERT', 'UPDATE']],
  [webhookAttempts, ['SELECT', 'INSERT']],
];

/**
 * Views the release before this one still reads, while its functions are replaced or after a
 * rollback: the hourly usage rollups the quarter-hours replaced (migration 0014). Dropped, with
 * their entries here, by the migration of the release after.
 */
export const APP_VIEWS: readonly string[] = ['ledger_usage_hourly', 'ledger_usage_reason_hourly'];

/**
 * The functions the app's statements call, by signature: the migrations take EXECUTE on them from
 * PUBLIC, so the app role holds it only by this grant.
 */
export const APP_FUNCTIONS: readonly string[] = [
  // The live-key guard of every route's statement (db/queries/api-keys.ts `keyIsLive`).
  'api_key_live(varchar)',
  // The ledger's trigger (it runs as the booking's role) and the seconds of voice GET /usage reads.
  'ledger_entries_booked()',
  'ledger_voice_seconds(timestamptz,timestamptz)',
];

/** Multi-user rotation alternates the secret between `<name>` and `<name>_clone`, a member of `<name>`. */
export const CLONE_SUFFIX = '_clone';
export const baseRoleName = (username: string) =>
  username.endsWith(CLONE_SUFFIX) ? username.slice(0, -CLONE_SUFFIX.length) : username;

/**
 * How the app role logs in: with a password (local servers, tests), or, in AWS, by IAM database
 * authentication (`rds_iam`, Aurora's role for it), which leaves it no password at all.
 */
export type AppCredentials =
  | { readonly username: string; readonly password: string }
  | { readonly username: string; readonly iam: true };

// Serialises two migration runs that would both try to create the role.
const ROLE_LOCK = 7_142_001;

/**
 * Creates the app role when missing and (re)applies exactly its privileges, in one transaction:
 * privileges granted by hand are revoked, tables added by a migration get theirs. The password
 * set is the secret's current one, for the user the secret currently names (the base role or its
 * rotation clone), so a run after a rotation changes nothing.
 */
export async function ensureAppRole(db: Database, credentials: AppCredentials): Promise<void> {
  const base = baseRoleName(credentials.username);
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(base)) throw new Error(`Unusable role name ${JSON.stringify(base)}`);
  const role = sql.identifier(base);
  await db.transaction(async (tx) => {
    const t = tx as unknown as Database;
    await t.execute(sql`select pg_advisory_xact_lock(${ROLE_LOCK})`);
    const exists = rowsOf(await t.execute(sql`select 1 from pg_roles where rolname = ${base}`)).length > 0;
    if (!exists)
      await t.execute(sql`create role ${role} login nosuperuser nocreatedb nocreaterole noinherit`);
    if ('iam' in credentials) {
      await t.execute(sql`alter role ${role} with login password null`);
      await t.execute(sql`grant rds_iam to ${role}`);
    } else {
      // Utility statements take no parameters: the server quotes the password itself.
      const [statement] = rowsOf<{ statement: string }>(
        await t.execute(
          sql`select format('alter role %I with login password %L', ${credentials.username}::text, ${credentials.password}::text) as statement`,
        ),
      );
      if (statement) await t.execute(sql.raw(statement.statement));
    }
    // Nobody but the owner creates objects; the app connects and reads its schema, no more.
    const database = sql.identifier(await currentDatabase(t));
    await t.execute(sql`revoke all on database ${database} from public`);
    await t.execute(sql`revoke all on database ${database} from ${role}`);
    await t.execute(sql`grant connect on database ${database} to ${role}`);
    await t.execute(sql`revoke create on schema public from public`);
    await t.execute(sql`revoke all on schema public from ${role}`);
    await t.execute(sql`grant usage on schema public to ${role}`);
    await t.execute(sql`revoke all on all tables in schema public from ${role}`);
    await t.execute(sql`revoke all on all sequences in schema public from ${role}`);
    await t.execute(sql`revoke all on all functions in schema public from ${role}`);
    for (const [table, privileges] of APP_PRIVILEGES) {
      await t.execute(
        sql`grant ${sql.raw(privileges.join(', '))} on table ${sql.identifier(getTableName(table))} to ${role}`,
      );
    }
    for (const view of APP_VIEWS) {
      await t.execute(sql`grant select on table ${sql.identifier(view)} to ${role}`);
    }
    for (const signature of APP_FUNCTIONS) {
      await t.execute(sql`grant execute on function ${sql.raw(signature)} to ${role}`);
    }
  });
}

async function currentDatabase(db: Database): Promise<string> {
  const [row] = rowsOf<{ name: string }>(await db.execute(sql`select current_database() as name`));
  if (!row) throw new Error('current_database() returned nothing');
  return row.name;
}
