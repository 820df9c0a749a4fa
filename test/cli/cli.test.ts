import { rmSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scopes } from '#contract/routes.ts';
import { emptyCliDatabase, lastLine, runCli, STACK_FRAME, TOKEN } from '#test/helpers/cli.ts';
import { usingPostgres } from '#test/helpers/database.ts';

/**
 * The command-line tools as a user runs them, from the start: child processes on an empty database
 * of their own (embedded, or a new one on the Postgres server), migrated, seeded and swept, its keys
 * minted, listed and revoked. What opens a database differs between the two, so this file runs on
 * both; the other commands and the usage errors are test/cli/commands.test.ts.
 */
describe('command-line tools', () => {
  let env: NodeJS.ProcessEnv;
  let remove: () => Promise<void>;
  let workspaceId: string;
  let keyId: string;

  const cli = (script: string, ...args: string[]) => runCli(script, args, env);

  beforeAll(async () => {
    ({ env, remove } = await emptyCliDatabase());
  });
  afterAll(() => remove());

  it('db:seed on an unmigrated database says to migrate first', async () => {
    const result = await cli('seed');
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toMatch(/has no tables yet: run `npm run db:migrate` first/);
    expect(result.stderr).not.toMatch(STACK_FRAME);
  });

  it('db:migrate applies the migrations', async () => {
    const result = await cli('migrate');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Migrations applied/);
  });

  it('db:seed creates a workspace and prints a token with every scope last', async () => {
    const result = await cli('seed', '--sessions', '12');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/12 sessions/);
    expect(lastLine(result.stdout)).toMatch(TOKEN);
    workspaceId = /^Workspace id: (\w+)$/m.exec(result.stdout)?.[1] ?? '';
    expect(workspaceId).toMatch(/^[a-z0-9]{24}$/);
  });

  it('sessions:sweep completes the seed’s stale sessions and purges no unpublished event', async () => {
    const result = await cli('sweep');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^Completed [1-9]\d* stale session\(s\) and purged 0 published event\(s\) older than 30 days in the /,
    );
    expect((await cli('sweep')).stdout).toMatch(/^Completed 0 stale session\(s\) and purged 0 /);
  });

  it('token create prints the new token last', async () => {
    const result = await cli(
      'token',
      'create',
      '--workspace',
      workspaceId,
      '--name',
      'reader',
      '--scopes',
      'sessions:read',
      '--expires-in',
      '30d',
    );
    expect(result.code).toBe(0);
    expect(lastLine(result.stdout)).toMatch(TOKEN);
    expect(result.stdout).toMatch(/Scopes: sessions:read; expires: \d{4}-/);
    keyId = /Created API key (\w+)/.exec(result.stdout)?.[1] ?? '';
    expect(keyId).not.toBe('');
  });

  it('token list shows the keys but never a token', async () => {
    const result = await cli('token', 'list', '--workspace', workspaceId);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^${keyId}\\s+reader\\s+sessions:read\\s+active\\s`, 'm'));
    // The demo key holds every scope of the route table.
    expect(result.stdout).toMatch(new RegExp(`Demo key\\s+${scopes.join(',')}\\s+active`));
    expect(result.stdout).not.toMatch(/vak_/);
  });

  it('token revoke revokes a live key once', async () => {
    expect(await cli('token', 'revoke', keyId)).toMatchObject({ code: 0 });
    const again = await cli('token', 'revoke', keyId);
    expect(again).toMatchObject({ code: 1, stdout: '' });
    expect(again.stderr).toBe(`token: no active key "${keyId}" (unknown or already revoked)\n`);
  });

  it.skipIf(usingPostgres())(
    'refuses an embedded database that another live process holds (PGlite only: skipped on a Postgres server, which many processes share)',
    async () => {
      const lock = `${env.PGLITE_DATA_DIR}.lock`;
      writeFileSync(lock, `${process.pid}\n`);
      try {
        const result = await cli('token', 'list', '--workspace', workspaceId);
        expect(result).toMatchObject({ code: 1, stdout: '' });
        expect(result.stderr).toContain(`is in use by process ${process.pid} (npm start?): stop it first`);
      } finally {
        rmSync(lock, { force: true });
      }
    },
  );
});
