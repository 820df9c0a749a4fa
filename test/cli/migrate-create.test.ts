import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, STACK_FRAME } from '#test/helpers/cli.ts';
import { usingPostgres } from '#test/helpers/database.ts';

/**
 * `db:migrate` with DATABASE_URL naming a database that does not exist: created when the user may,
 * else the exact command for someone who may. Whatever it creates here, the test drops.
 */
describe.runIf(usingPostgres())(
  'db:migrate on a database that does not exist yet (real Postgres; skipped on PGlite, which has no such case)',
  () => {
    const suffix = randomBytes(5).toString('hex');
    const created = `vaa_mig_${suffix}`;
    const refused = `vaa_mig_refused_${suffix}`;
    const role = `vaa_nocreatedb_${suffix}`;
    const server = postgres(process.env.DATABASE_URL ?? '', { max: 1, onnotice: () => {} });
    const urlOf = (database: string, user?: string) => {
      const url = new URL(process.env.DATABASE_URL ?? '');
      url.pathname = `/${database}`;
      if (user) {
        url.username = user;
        url.password = '';
      }
      return url.toString();
    };
    const migrate = (url: string) => runCli('migrate', [], { ...process.env, DEBUG: '', DATABASE_URL: url });
    const exists = async (database: string) =>
      (await server`select 1 from pg_database where datname = ${database}`).length === 1;

    beforeAll(async () => {
      await server.unsafe(`create role "${role}" login nocreatedb`);
    });
    afterAll(async () => {
      await server.unsafe(`drop database if exists "${created}" with (force)`);
      await server.unsafe(`drop database if exists "${refused}" with (force)`);
      await server.unsafe(`drop role if exists "${role}"`);
      await server.end();
    });

    it('creates it, then applies the migrations', async () => {
      const result = await migrate(urlOf(created));
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(
        new RegExp(`^Created the database postgres://[^/]+/${created}\\.\\nMigrations applied`),
      );
      const inside = postgres(urlOf(created), { max: 1, onnotice: () => {} });
      const [row] =
        await inside`select count(*)::int as n from information_schema.tables where table_name = 'agents'`;
      await inside.end();
      expect(row?.n).toBe(1);
      // A second run finds it and only migrates.
      expect((await migrate(urlOf(created))).stdout).toMatch(/^Migrations applied/);
    });

    it('says the exact command when the user may not create databases', async () => {
      const result = await migrate(urlOf(refused, role));
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(`${role} may not create databases`);
      expect(result.stderr).toMatch(new RegExp(`run createdb -h [^ ]+ -p \\d+ '${refused}'`));
      expect(result.stderr).toContain(`create database "${refused}";`);
      expect(result.stderr).not.toMatch(STACK_FRAME);
      expect(await exists(refused)).toBe(false);
    });
  },
);
