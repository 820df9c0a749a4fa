import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { getTableName, sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from '#db/client.ts';
import { sqlState } from '#db/errors.ts';
import { defaultMigrationsFolder, migrate } from '#db/migrate.ts';
import { revokeApiKey } from '#db/queries/manage-api-keys.ts';
import { rowsOf } from '#db/queries/rows.ts';
import { APP_FUNCTIONS, APP_PRIVILEGES, APP_VIEWS, ensureAppRole } from '#db/roles.ts';
import { seedDemoWorkspace } from '#db/seed/demo-workspace.ts';
import { build as buildCreateAgent } from '#functions/agents/create.ts';
import { build as buildListAgents } from '#functions/agents/list.ts';
import { build as buildAuthorizer } from '#functions/authorizer.ts';
import { silentLogger } from '#functions/http/log.ts';
import type { AuthorizerEvent } from '#functions/http/types.ts';
import { build as buildCompleteSession } from '#functions/sessions/complete.ts';
import { build as buildCreateSession } from '#functions/sessions/create.ts';
import { build as buildListSessions } from '#functions/sessions/list.ts';
import { build as buildSweep } from '#functions/sessions/sweep.ts';
import { freshDatabase, usingPostgres } from '#test/helpers/database.ts';
import { apiEvent } from '#test/helpers/events.ts';
import { insertAgent } from '#test/helpers/fixtures.ts';
import { createTenant, type Tenant } from '#test/helpers/tenants.ts';

/** What the app role must hold, as `<table> <privilege>`, sorted: its tables' and its views'. */
const APP_GRANTS = [
  ...APP_PRIVILEGES.flatMap(([table, privileges]) => privileges.map((p) => `${getTableName(table)} ${p}`)),
  ...APP_VIEWS.map((view) => `${view} SELECT`),
].sort();

/** What `role` holds on the tables and views, in APP_GRANTS's form. */
const grantsOf = async (master: DatabaseHandle, role: string) =>
  rowsOf<{ grant: string }>(
    await master.db.execute(sql`select table_name || ' ' || privilege_type as grant
      from information_schema.role_table_grants where grantee = ${role}`),
  )
    .map((g) => g.grant)
    .sort();

/** The server is shared: the role's name is this run's own. Roles do not exist on PGlite. */
describe.runIf(usingPostgres())(
  'the application role (real Postgres; skipped on PGlite, which has one user)',
  () => {
    const role = `vaa_app_${randomBytes(5).toString('hex')}`;
    const password = randomBytes(18).toString('base64url');
    let master: DatabaseHandle & { url?: string };
    let app: DatabaseHandle;
    const urlAs = (username: string, secret: string) => {
      const url = new URL(master.url ?? '');
      url.username = username;
      url.password = secret;
      return url.toString();
    };

    beforeAll(async () => {
      master = await freshDatabase();
      // What the deploy trigger does: the migrations, then the role, on the master connection.
      await migrate(master, undefined, { appRole: { username: role, password } });
      app = await openDatabase({ kind: 'postgres', url: urlAs(role, password), poolMax: 2 });
    });
    afterAll(async () => {
      await app?.close();
      await master?.close(); // drops the database, and with it every grant made in it
      const server = postgres(process.env.DATABASE_URL ?? '', { max: 1, onnotice: () => {} });
      await server.unsafe(`drop role if exists "${role}_clone"`);
      await server.unsafe(`drop role if exists "${role}"`);
      await server.end();
    });

    const asApp = async (statement: string) => {
      try {
        await app.db.execute(sql.raw(statement));
        return 'allowed';
      } catch (error) {
        return sqlState(error);
      }
    };

    it('is a plain login role with the secret password, and no attribute beyond LOGIN', async () => {
      const [row] = rowsOf<Record<string, unknown>>(
        await master.db.execute(sql`
        select rolcanlogin, rolsuper, rolcreatedb, rolcreaterole, rolreplication, rolbypassrls,
               rolpassword is not null as has_password
        from pg_authid where rolname = ${role}`),
      );
      expect(row).toEqual({
        rolcanlogin: true,
        rolsuper: false,
        rolcreatedb: false,
        rolcreaterole: false,
        rolreplication: false,
        rolbypassrls: false,
        has_password: true,
      });
    });

    it('has privileges listed for every table the migrations create, and only those', async () => {
      const tables = rowsOf<{ name: string }>(
        await master.db.execute(
          sql`select table_name as name from information_schema.tables where table_schema = 'public'`,
        ),
      ).map((t) => t.name);
      expect([...APP_PRIVILEGES.map(([table]) => getTableName(table)), ...APP_VIEWS].sort()).toEqual(
        tables.sort(),
      );
      expect(await grantsOf(master, role)).toEqual(APP_GRANTS);
    });

    it('may execute the functions the statements call, which PUBLIC may not', async () => {
      // Every function of the schema: whether APP_FUNCTIONS lists it, and who may execute it.
      const functions = rowsOf<{ listed: boolean; app: boolean; public: boolean }>(
        await master.db.execute(sql`
        select p.oid in (select to_regprocedure(s) from unnest(string_to_array(${APP_FUNCTIONS.join(';')}, ';')) s) as listed,
          has_function_privilege(${role}, p.oid, 'execute') as app,
          exists (select 1 from aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) a
            where a.grantee = 0 and a.privilege_type = 'EXECUTE') as public
        from pg_proc p where p.pronamespace = 'public'::regnamespace`),
      );
      expect(functions).toEqual(APP_FUNCTIONS.map(() => ({ listed: true, app: true, public: false })));
    });

    describe('serves every operation, through the real handlers', () => {
      let tenant: Tenant;
      beforeAll(async () => {
        // The admin function's operations: a workspace with its theme, a key, a demo workspace.
        tenant = await createTenant(app.db);
      });

      it('seeds a demo workspace and revokes a key', async () => {
        const seeded = await seedDemoWorkspace(app.db, { sessions: 5 });
        expect(seeded.counts.sessions).toBe(5);
        expect(await revokeApiKey(app.db, seeded.keyId)).toBe(true);
      });

      it('authorises a bearer token (recording its last use)', async () => {
        const authorize = buildAuthorizer({ database: app, logger: silentLogger });
        const result = await authorize({
          type: 'REQUEST',
          methodArn: 'arn:aws:execute-api:eu-west-1:000000000000:api/v1/GET/agents',
          headers: { authorization: `Bearer ${tenant.token}` },
          requestContext: { requestId: 'role-test' },
        } as unknown as AuthorizerEvent);
        expect(result).toMatchObject({
          policyDocument: { Statement: [{ Effect: 'Allow' }] },
          context: { workspaceId: tenant.workspaceId },
        });
      });

      it('creates an agent idempotently, then lists agents and sessions', async () => {
        const createAgent = buildCreateAgent({ database: app, logger: silentLogger });
        const post = () =>
          createAgent(
            apiEvent({
              method: 'POST',
              path: '/agents',
              body: { name: 'Role check' },
              headers: { 'idempotency-key': 'role-1' },
              caller: tenant,
            }),
          );
        const first = await post();
        expect(first.statusCode).toBe(201);
        expect((await post()).body).toBe(first.body);
        const agents = await buildListAgents({ database: app, logger: silentLogger })(
          apiEvent({ path: '/agents', caller: tenant }),
        );
        expect(agents.statusCode).toBe(200);
        expect(JSON.parse(agents.body ?? '[]')).toHaveLength(1);
        const sessions = await buildListSessions({ database: app, logger: silentLogger })(
          apiEvent({ path: '/sessions', caller: tenant }),
        );
        expect(sessions.statusCode).toBe(200);
      });

      it('records a session through the write path and sweeps stale ones', async () => {
        const deps = { database: app, logger: silentLogger };
        const { agentId, versionIds } = await insertAgent(master.db, tenant, { n: 1 });
        await master.db.execute(
          sql`update agents set published_version_id = ${versionIds[0]} where id = ${agentId}`,
        );
        const created = await buildCreateSession(deps)(
          apiEvent({
            method: 'POST',
            path: '/sessions',
            body: { agentId, type: 'WEB_VOICE', person: { email: 'role@example.com' } },
            headers: { 'idempotency-key': 'role-session' },
            caller: tenant,
            scopes: 'sessions:write',
          }),
        );
        expect(created.statusCode).toBe(201);
        const { id } = JSON.parse(created.body) as { id: string };
        const completed = await buildCompleteSession(deps)(
          apiEvent({
            method: 'POST',
            path: `/sessions/${id}/complete`,
            resource: '/sessions/{sessionId}/complete',
            body: { usage: { amount: -3 } },
            caller: tenant,
            scopes: 'sessions:write',
          }),
        );
        expect(completed.statusCode).toBe(200);
        // The demo workspace seeded above has open sessions long quiet: the sweep completes those.
        const open = async () =>
          rowsOf<{ n: number }>(
            await master.db.execute(sql`select count(*)::int as n from sessions where status <> 'COMPLETED'
              and coalesce(last_heartbeat_at, created_at) < now() - interval '5 minutes'`),
          )[0]?.n;
        const stale = await open();
        expect(stale).toBeGreaterThan(0);
        // And the purge deletes, as the app role, a published event past the retention window.
        await master.db.execute(sql`update events set occurred_at = now() - interval '40 days',
          published_at = now() where seq = (select min(seq) from events)`);
        expect(await buildSweep(deps)()).toEqual({ swept: stale, purged: 1 });
        expect(await open()).toBe(0);
      });

      it('reads, as the previous release does, the hourly usage the quarter-hours now hold (its views)', async () => {
        const byHour = (from: string) =>
          app.db.execute(
            sql.raw(`select workspace_id, to_char(hour at time zone 'UTC', 'YYYY-MM-DD HH24') as hour,
              reason, sum(amount)::int as amount, sum(entries)::int as entries from ${from}
              group by 1, 2, 3 order by 1, 2, 3`),
          );
        const entries = rowsOf(
          await app.db.execute(
            sql.raw(`select workspace_id, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD HH24') as hour,
              reason, sum(amount)::int as amount, count(*)::int as entries from ledger_entries
              group by 1, 2, 3 order by 1, 2, 3`),
          ),
        );
        expect(entries.length).toBeGreaterThan(0);
        expect(rowsOf(await byHour('ledger_usage_hourly'))).toEqual(entries);
        expect(rowsOf(await byHour('ledger_usage_reason_hourly'))).toEqual(entries);
      });
    });

    it('books, as the release before migration 0016 does, right after it and before its privileges are applied again', async () => {
      // As a deploy finds it between the migrations and the role's run: the daily rollup without the
      // app's grant (its table is new), its trigger not yet keeping it.
      await master.db.execute(sql.raw(`revoke all on ledger_usage_agent_daily from "${role}"`));
      await master.db.execute(sql`truncate ledger_usage_agent_daily`);
      const migration = readFileSync(
        `${defaultMigrationsFolder()}/0016_usage_agent_daily_trigger.sql`,
        'utf8',
      );
      await master.db.transaction(async (tx) => {
        for (const statement of migration.split('--> statement-breakpoint'))
          await tx.execute(sql.raw(statement));
      });
      const [{ workspaceId } = { workspaceId: '' }] = rowsOf<{ workspaceId: string }>(
        await master.db.execute(sql`select id as "workspaceId" from workspaces limit 1`),
      );
      expect(
        await asApp(`insert into ledger_entries (id, workspace_id, amount, reason)
          values ('${randomBytes(12).toString('hex')}', '${workspaceId}', -5, 'SMS_USAGE')`),
      ).toBe('allowed');
      const byDay = (from: string, count: string) =>
        `select workspace_id, day, agent_id, reason, sum(amount)::int as amount, sum(${count})::int as entries
        from ${from} group by 1, 2, 3, 4 order by 1, 2, 3, 4`;
      const entries = rowsOf(
        await master.db.execute(
          sql.raw(
            byDay(`(select *, (created_at at time zone 'UTC')::date as day from ledger_entries) e`, '1'),
          ),
        ),
      );
      expect(entries.length).toBeGreaterThan(1);
      expect(rowsOf(await master.db.execute(sql.raw(byDay('ledger_usage_agent_daily', 'entries'))))).toEqual(
        entries,
      );
      expect(await grantsOf(master, role)).toEqual(APP_GRANTS);
    });

    it('cannot create, drop, alter or truncate anything, nor delete or update what the app never does', async () => {
      const refused = {
        'create table role_probe (id int)': '42501',
        'create temporary table role_probe (id int)': '42501',
        'create schema role_probe': '42501',
        'create index role_probe on agents (name)': '42501',
        'create function role_probe() returns int language sql as $$ select 1 $$': '42501',
        'create view role_probe as select 1 as one': '42501',
        'alter table agents add column role_probe int': '42501',
        'drop table idempotency_keys': '42501',
        'truncate agents': '42501',
        'truncate idempotency_keys': '42501',
        // The purge deletes published events in batches; nothing empties the outbox at once.
        'truncate events': '42501',
        'delete from agents': '42501',
        // Versions never change once written (a published one is immutable); the history is append-only.
        'update agent_versions set system_prompt = system_prompt': '42501',
        'update agent_changes set operation = operation': '42501',
        'delete from agent_changes': '42501',
        'delete from workspaces': '42501',
        'delete from sessions': '42501',
        'delete from persons': '42501',
        'create role role_probe': '42501',
        'create database role_probe': '42501',
      };
      const outcomes: Record<string, string | undefined> = {};
      for (const statement of Object.keys(refused)) outcomes[statement] = await asApp(statement);
      expect(outcomes).toEqual(refused);
    });

    it('cannot read the migration journal', async () => {
      expect(await asApp('select * from drizzle.__drizzle_migrations')).toBe('42501');
    });

    it('loses on the next run a privilege granted by hand', async () => {
      await master.db.execute(sql.raw(`grant delete, truncate on agents to "${role}"`));
      expect(await asApp('delete from agents where false')).toBe('allowed');
      await ensureAppRole(master.db, { username: role, password });
      expect(await asApp('delete from agents where false')).toBe('42501');
    });

    it("serves through the rotation's clone, a member of the role, without touching the role's password", async () => {
      const clone = `${role}_clone`;
      // What Secrets Manager's alternating-users rotation does on its first run.
      await master.db.execute(sql.raw(`create role "${clone}" with login password 'first'`));
      await master.db.execute(sql.raw(`grant "${role}" to "${clone}"`));
      const before = rowsOf<{ p: string }>(
        await master.db.execute(sql`select rolpassword as p from pg_authid where rolname = ${role}`),
      );
      await ensureAppRole(master.db, { username: clone, password: 'second' });
      const after = rowsOf<{ p: string }>(
        await master.db.execute(sql`select rolpassword as p from pg_authid where rolname = ${role}`),
      );
      expect(after).toEqual(before);
      const viaClone = await openDatabase({ kind: 'postgres', url: urlAs(clone, 'second'), poolMax: 1 });
      try {
        const tenant = await createTenant(viaClone.db);
        const listed = await buildListAgents({ database: viaClone, logger: silentLogger })(
          apiEvent({ path: '/agents', caller: tenant }),
        );
        expect(listed.statusCode).toBe(200);
        await expect(viaClone.db.execute(sql`truncate agents`)).rejects.toMatchObject({
          cause: { code: '42501' },
        });
      } finally {
        await viaClone.close();
      }
    });
  },
);

/**
 * In AWS the migration function gives the role IAM database authentication instead of a password:
 * Aurora's `rds_iam` role, which a plain server lacks, so this run creates it (shared, harmless).
 */
describe.runIf(usingPostgres())(
  'the application role with IAM authentication (real Postgres; skipped on PGlite, which has one user)',
  () => {
    const role = `vaa_iam_${randomBytes(5).toString('hex')}`;
    let master: DatabaseHandle;

    beforeAll(async () => {
      master = await freshDatabase();
      await master.db.execute(
        sql.raw(`do $$ begin create role rds_iam; exception when duplicate_object then null; end $$`),
      );
      await migrate(master, undefined, { appRole: { username: role, password: 'was-set-before' } });
      await ensureAppRole(master.db, { username: role, iam: true });
    });
    afterAll(async () => {
      await master?.close();
      const server = postgres(process.env.DATABASE_URL ?? '', { max: 1, onnotice: () => {} });
      await server.unsafe(`drop role if exists "${role}"`);
      await server.end();
    });

    it('is a member of rds_iam with no password left, and keeps exactly its privileges', async () => {
      const [row] = rowsOf<{ password: string | null; iam: boolean; login: boolean }>(
        await master.db.execute(
          sql`select rolpassword as password, rolcanlogin as login, pg_has_role(rolname, 'rds_iam', 'member') as iam
            from pg_authid where rolname = ${role}`,
        ),
      );
      expect(row).toEqual({ password: null, login: true, iam: true });
      expect(await grantsOf(master, role)).toEqual(APP_GRANTS);
    });
  },
);
