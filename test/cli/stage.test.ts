import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '#db/client.ts';
import { authenticate } from '#db/queries/api-keys.ts';
import { rowsOf } from '#db/queries/rows.ts';
import { silentLogger } from '#functions/http/log.ts';
import { type Gateway, startGateway } from '#infra/local/gateway.ts';
import { type LocalStage, startLocalStage } from '#local-aws/local-stage.ts';
import { awsEnv, type CliResult, lastLine, runCli, STACK_FRAME, TOKEN } from '#test/helpers/cli.ts';
import { freshDatabase, usingPostgres } from '#test/helpers/database.ts';

/**
 * The CLIs' `--stage` path end to end: stack outputs read through the real CloudFormation client,
 * the admin function invoked through the real Lambda client, both pointed at local stand-ins
 * (AWS_ENDPOINT_URL_*) that run the very build(deps) the stack deploys over a test database.
 */
describe('the CLIs with --stage', () => {
  let handle: DatabaseHandle & { url?: string };
  let gateway: Gateway;
  let preview: LocalStage;
  let prod: LocalStage;
  let env: NodeJS.ProcessEnv;
  let workspaceId: string;
  let keyId: string;

  // A DATABASE_URL nothing answers: with --stage the CLIs must not touch a database themselves.
  const cli = (file: string, ...args: string[]): Promise<CliResult> => runCli(file, args, env);

  beforeAll(async () => {
    handle = await freshDatabase();
    const deps = { database: handle, logger: silentLogger };
    gateway = await startGateway({ deps });
    preview = await startLocalStage({ deps, apiUrl: gateway.url, stage: 'pr-9' });
    prod = await startLocalStage({ deps, apiUrl: gateway.url, stage: 'prod', demoSeed: false });
    env = awsEnv(preview.env, { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/unused' });
  });
  afterAll(async () => {
    await prod?.close();
    await preview?.close();
    await gateway?.close();
    await handle?.close();
  });

  it('workspace create prints the new workspace id last', async () => {
    const result = await cli('workspace', 'create', '--name', 'Acme', '--stage', 'pr-9');
    expect(result).toMatchObject({ code: 0, stderr: '' });
    workspaceId = lastLine(result.stdout);
    expect(result.stdout).toContain(
      'Created workspace "Acme" in the stage pr-9 (admin function VoiceAgentAdmin-pr-9-Admin)',
    );
    const rows = rowsOf(
      await handle.db.execute(sql`select 1 from workspaces where id = ${workspaceId} and name = 'Acme'`),
    );
    expect(rows).toHaveLength(1);
  });

  it('workspace list shows it', async () => {
    const result = await cli('workspace', 'list', '--stage', 'pr-9');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^${workspaceId}\\s+Acme\\s+standard\\s+\\d{4}-`, 'm'));
  });

  it('token create prints a token last that the API accepts', async () => {
    const result = await cli(
      'token',
      'create',
      '--workspace',
      workspaceId,
      '--scopes',
      'sessions:read',
      '--stage',
      'pr-9',
    );
    expect(result.code).toBe(0);
    const token = lastLine(result.stdout);
    expect(token).toMatch(TOKEN);
    keyId = /Created API key (\w+)/.exec(result.stdout)?.[1] ?? '';
    expect(await authenticate(handle.sql, token)).toMatchObject({
      workspaceId,
      keyId,
      scopes: ['sessions:read'],
    });
    const response = await fetch(`${gateway.url}/sessions`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.status).toBe(200);
  });

  it('token list shows the key, never a token', async () => {
    const result = await cli('token', 'list', '--workspace', workspaceId, '--stage', 'pr-9');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^${keyId}\\s+CLI key\\s+sessions:read\\s+active\\s`, 'm'));
    expect(result.stdout).not.toMatch(/vak_/);
  });

  it('token revoke revokes once, then says so', async () => {
    expect(await cli('token', 'revoke', keyId, '--stage', 'pr-9')).toMatchObject({ code: 0 });
    expect(await cli('token', 'revoke', keyId, '--stage', 'pr-9')).toEqual({
      code: 1,
      stdout: '',
      stderr: `token: no active key "${keyId}" (unknown or already revoked)\n`,
    });
  });

  it('db:seed seeds a preview and prints its token last', async () => {
    const result = await cli('seed', '--stage', 'pr-9', '--sessions', '7');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/7 sessions/);
    const token = lastLine(result.stdout);
    expect(token).toMatch(TOKEN);
    expect(await authenticate(handle.sql, token)).toBeDefined();
  });

  it('db:seed is refused on prod, with the reason', async () => {
    const result = await runCli('seed', ['--stage', 'prod'], { ...env, ...prod.env });
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'db:seed: seed.demo is refused on stage "prod": it keeps real data, and demo data is for previews only\n',
    });
  });

  it('names a stage that is not deployed', async () => {
    expect(await cli('workspace', 'list', '--stage', 'Nope/Branch')).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'workspace: stack VoiceAgentAdmin-nope-branch does not exist in this account and region: is "nope-branch" deployed?\n',
    });
  });

  it('says so when there are no AWS credentials', async () => {
    const result = await runCli('workspace', ['list', '--stage', 'pr-9'], {
      ...env,
      AWS_ACCESS_KEY_ID: '',
      AWS_SECRET_ACCESS_KEY: '',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/no AWS credentials/);
    expect(result.stderr).not.toMatch(STACK_FRAME);
  });

  it('checks a command before invoking anything', async () => {
    const result = await cli('token', 'create', '--workspace', 'Not An Id', '--stage', 'pr-9');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^token: workspaceId /);
  });

  it.runIf(usingPostgres())(
    'prints the same as against the database itself (needs a Postgres server: skipped on PGlite)',
    async () => {
      const local = await runCli('workspace', ['list'], { ...env, DATABASE_URL: handle.url });
      const staged = await cli('workspace', 'list', '--stage', 'pr-9');
      expect(local.code).toBe(0);
      expect(staged).toEqual(local);
    },
  );
});
