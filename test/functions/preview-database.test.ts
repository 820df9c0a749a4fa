import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from '#db/client.ts';
import { createPreviewDatabase, dropPreviewDatabase } from '#db/preview-databases.ts';
import { silentLogger } from '#functions/http/log.ts';
import { applyMigrations } from '#functions/migrate.ts';
import { handler } from '#functions/preview-database.ts';
import { type Gateway, startGateway } from '#infra/local/gateway.ts';
import { type LocalStage, startLocalStage } from '#local-aws/local-stage.ts';
import { awsEnv, lastLine, runCli } from '#test/helpers/cli.ts';
import { usingPostgres } from '#test/helpers/database.ts';

/**
 * The branch-database custom resource's SQL against the real server, with DATABASE_URL's user as
 * the shared preview cluster's master: two branches, each with its database and role, migrated
 * and smoke-tested through the local gateway as the branch role, isolated from each other, then
 * dropped while connections are still open.
 */
describe.skipIf(!usingPostgres())('the preview database custom resource (real Postgres)', () => {
  const master = process.env.DATABASE_URL as string;
  const suffix = randomBytes(4).toString('hex');
  const branch = (name: string) => ({
    database: `preview_${name}_${suffix}`,
    role: `app_${name}_${suffix}`,
    password: randomBytes(12).toString('hex'),
  });
  const a = branch('a');
  const b = branch('b');
  const urlOf = (spec: { database: string; role: string; password: string }, database = spec.database) => {
    const url = new URL(master);
    url.username = spec.role;
    url.password = spec.password;
    url.pathname = `/${database}`;
    return url.toString();
  };
  const masterOn = (database: string) => {
    const url = new URL(master);
    url.pathname = `/${database}`;
    return url.toString();
  };
  const admin = postgres(master, { max: 1, onnotice: () => {} });
  const exists = async (spec: { database: string; role: string }) => {
    const [row] = await admin<{ database: boolean; role: boolean }[]>`select
      exists (select 1 from pg_database where datname = ${spec.database}) as database,
      exists (select 1 from pg_roles where rolname = ${spec.role}) as role`;
    return row;
  };

  beforeAll(async () => {
    await createPreviewDatabase(master, a);
    await createPreviewDatabase(master, b);
  });
  afterAll(async () => {
    await dropPreviewDatabase(master, a).catch(() => {});
    await dropPreviewDatabase(master, b).catch(() => {});
    await admin.end();
  });

  it('creates the database and its role, and a second create changes nothing', async () => {
    expect(await exists(a)).toEqual({ database: true, role: true });
    await createPreviewDatabase(master, a);
    expect(await exists(a)).toEqual({ database: true, role: true });
    const [acl] = await admin<{ acl: string }[]>`
      select datacl::text as acl from pg_database where datname = ${a.database}`;
    // The role may connect; PUBLIC (an entry with an empty grantee, `=c/…`) may not.
    expect(acl?.acl).toContain(`${a.role}=c/`);
    expect(acl?.acl).not.toMatch(/[{,]=/);
  });

  it('is migrated as the master, then serves the smoke test as the branch role through the gateway', async () => {
    const migrated = await applyMigrations(
      { kind: 'postgres', url: masterOn(a.database) },
      {
        remainingMs: () => 60_000,
        logger: silentLogger,
        appRole: { username: a.role, password: a.password },
      },
    );
    expect(migrated).toEqual({ attempts: 1 });
    const handle: DatabaseHandle = await openDatabase({ kind: 'postgres', url: urlOf(a), poolMax: 2 });
    let gateway: Gateway | undefined;
    let stage: LocalStage | undefined;
    try {
      const deps = { database: handle, logger: silentLogger };
      gateway = await startGateway({ deps });
      stage = await startLocalStage({ deps, apiUrl: gateway.url, stage: `pr-${suffix}` });
      const result = await runCli('smoke', ['--stage', `pr-${suffix}`, '--write'], awsEnv(stage.env));
      expect(result.stdout).not.toMatch(/^(skip|FAIL)/m);
      expect(lastLine(result.stdout)).toBe('25 passed, 0 failed, 0 skipped');
      expect(result.code).toBe(0);
    } finally {
      await stage?.close();
      await gateway?.close();
      await handle.close();
    }
  });

  it("refuses each branch's role on the other branch's database", async () => {
    for (const [own, other] of [
      [a, b],
      [b, a],
    ] as const) {
      const ownSql = postgres(urlOf(own), { max: 1, onnotice: () => {} });
      const [row] = await ownSql<{ db: string }[]>`select current_database() as db`;
      expect(row?.db).toBe(own.database);
      await ownSql.end();
      const intruder = postgres(urlOf(own, other.database), { max: 1, onnotice: () => {} });
      await expect(intruder`select 1`).rejects.toMatchObject({
        code: '42501',
        message: expect.stringContaining(`permission denied for database "${other.database}"`),
      });
      await intruder.end();
    }
  });

  it('drops a database that still has open connections, then its role; dropping again is a no-op', async () => {
    const held = postgres(urlOf(b), { max: 2, onnotice: () => {} });
    await Promise.all([held`select 1`, held`select pg_sleep(0)`]);
    await dropPreviewDatabase(master, b);
    expect(await exists(b)).toEqual({ database: false, role: false });
    await expect(held`select 1`).rejects.toBeDefined();
    await held.end({ timeout: 1 }).catch(() => {});
    await dropPreviewDatabase(master, b);
    // The other branch is untouched.
    expect(await exists(a)).toEqual({ database: true, role: true });
  });

  it('refuses names that are not plain identifiers before touching the server', async () => {
    await expect(
      createPreviewDatabase(master, { ...a, database: 'x"; drop database test; --' }),
    ).rejects.toThrow(/Unusable database name/);
    await expect(dropPreviewDatabase(master, { database: a.database, role: 'Robert' })).rejects.toThrow(
      /Unusable role name/,
    );
  });
});

/**
 * The deployed entry point itself, as the Provider calls it: the master's and the branch's
 * credentials from a Secrets Manager stand-in, the master on the maintenance database.
 */
describe.skipIf(!usingPostgres())(
  'the preview database handler (real Postgres, secrets from a stand-in)',
  () => {
    // Read while collecting even when skipped (PGlite runs): a placeholder then.
    const master = new URL(process.env.DATABASE_URL || 'postgres://unused@127.0.0.1:1/none');
    const suffix = randomBytes(4).toString('hex');
    const DatabaseName = `preview_h_${suffix}`;
    const role = `app_h_${suffix}`;
    const secrets: Record<string, unknown> = {
      'arn:master': {
        username: decodeURIComponent(master.username),
        password: decodeURIComponent(master.password),
        host: master.hostname,
        port: Number(master.port || 5432),
      },
    };
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => {
        body += chunk;
      });
      req.on('end', () => {
        const secret = secrets[JSON.parse(body).SecretId];
        res.writeHead(secret ? 200 : 400, { 'content-type': 'application/x-amz-json-1.1' });
        res.end(
          JSON.stringify(
            secret ? { SecretString: JSON.stringify(secret) } : { __type: 'ResourceNotFoundException' },
          ),
        );
      });
    });
    const admin = postgres(master.toString(), { max: 1, onnotice: () => {} });
    const exists = async () =>
      (await admin`select 1 from pg_database where datname = ${DatabaseName}`).length === 1 &&
      (await admin`select 1 from pg_roles where rolname = ${role}`).length === 1;
    const saved = { ...process.env };

    beforeAll(async () => {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      Object.assign(process.env, {
        AWS_REGION: 'eu-west-1',
        AWS_ACCESS_KEY_ID: 'AKIDSTANDIN',
        AWS_SECRET_ACCESS_KEY: 'stand-in',
        AWS_ENDPOINT_URL_SECRETS_MANAGER: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        DATABASE_SECRET_ARN: 'arn:master',
        DATABASE_NAME: master.pathname.slice(1) || 'postgres',
        DATABASE_SSLMODE: 'disable',
      });
    });
    afterAll(async () => {
      await dropPreviewDatabase(master.toString(), { database: DatabaseName, role }).catch(() => {});
      await admin.end();
      server.close();
      process.env = saved;
    });

    const event = (RequestType: 'Create' | 'Update' | 'Delete') => ({
      RequestType,
      PhysicalResourceId: RequestType === 'Create' ? undefined : DatabaseName,
      ResourceProperties: { DatabaseName, RoleName: role },
    });

    it('creates on Create, converges on a repeated Create and on Update, drops on Delete', async () => {
      expect(await handler(event('Create'))).toEqual({
        PhysicalResourceId: DatabaseName,
        Data: { DatabaseName, Username: role },
      });
      expect(await exists()).toBe(true);
      await handler(event('Create'));
      await handler(event('Update'));
      expect(await exists()).toBe(true);
      expect(await handler(event('Delete'))).toEqual({ PhysicalResourceId: DatabaseName });
      expect(await exists()).toBe(false);
      // A Delete after a failed Create (nothing there) succeeds, so the stack can still be removed.
      await handler(event('Delete'));
    });
  },
);
