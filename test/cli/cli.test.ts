import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scopes } from '#contract/routes.ts';
import { lastLine, runCli, STACK_FRAME, TOKEN } from '#test/helpers/cli.ts';
import { usingPostgres } from '#test/helpers/database.ts';

/**
 * The command-line tools as a user runs them: child processes on an empty database of their own,
 * a new Postgres database when DATABASE_URL is set, else an embedded one in a temporary directory.
 */
describe('command-line tools', () => {
  const env: NodeJS.ProcessEnv = { ...process.env, DEBUG: '' };
  let cleanup: () => Promise<void>;
  let workspaceId: string;
  let keyId: string;

  const cli = (script: string, ...args: string[]) => runCli(script, args, env);

  beforeAll(async () => {
    const url = process.env.DATABASE_URL;
    if (url) {
      const name = `vaa_cli_${randomBytes(6).toString('hex')}`;
      const admin = postgres(url, { max: 1, onnotice: () => {} });
      await admin.unsafe(`create database "${name}"`);
      const target = new URL(url);
      target.pathname = `/${name}`;
      env.DATABASE_URL = target.toString();
      cleanup = async () => {
        await admin.unsafe(`drop database if exists "${name}" with (force)`);
        await admin.end();
      };
    } else {
      const dir = mkdtempSync(join(tmpdir(), 'vaa-cli-'));
      env.PGLITE_DATA_DIR = join(dir, 'data', 'pglite');
      cleanup = async () => rmSync(dir, { recursive: true, force: true });
    }
  });
  afterAll(() => cleanup());

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

  it('workspace create prints the new id last, and workspace list shows it', async () => {
    const created = await cli('workspace', 'create', '--name', '  Acme  ');
    expect(created).toMatchObject({ code: 0, stderr: '' });
    const id = lastLine(created.stdout);
    expect(id).toMatch(/^[a-z0-9]{24}$/);
    expect(created.stdout).toMatch(/^Created workspace "Acme" in the (embedded )?database/);
    const listed = await cli('workspace', 'list');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`^${id}\\s+Acme\\s+standard\\s+\\d{4}-\\d{2}-\\d{2}T`, 'm'));
    expect(listed.stdout.split('\n')[0]).toMatch(/^ID\s+NAME\s+TIER\s+CREATED$/);
    const moved = await cli('workspace', 'tier', '--workspace', id, '--tier', 'pro');
    expect(moved).toMatchObject({ code: 0, stderr: '' });
    expect(moved.stdout).toMatch(/^Workspace "Acme" in the .*: tier standard → pro\.$/m);
    expect((await cli('workspace', 'list')).stdout).toMatch(new RegExp(`^${id}\\s+Acme\\s+pro\\s`, 'm'));
    const unknown = await cli('workspace', 'tier', '--workspace', 'nosuchworkspace', '--tier', 'free');
    expect(unknown).toEqual({ code: 1, stdout: '', stderr: 'workspace: no workspace "nosuchworkspace"\n' });
  });

  it.each([
    [['create'], 'create needs --name <name>'],
    [['create', '--name', ' '], '--name must be 1 to 255 characters'],
    [['list', '--name', 'x'], 'list does not take --name'],
    [['delete'], 'unknown command "delete"'],
    [['tier', '--tier', 'pro'], 'tier needs --workspace <id>'],
    [['tier', '--workspace', 'x', '--tier', 'gold'], 'tier needs --tier, one of free, standard, pro'],
    [['list', '--tier', 'pro'], 'list does not take --workspace or --tier'],
  ])('workspace %j fails with the usage text', async (args, message) => {
    const result = await cli('workspace', ...args);
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toContain(
      `workspace: ${message}\n\nUsage:\n  npm run workspace -- create --name <name>`,
    );
  });

  it('token create names an unknown workspace', async () => {
    const result = await cli('token', 'create', '--workspace', 'nosuchworkspace');
    expect(result).toEqual({ code: 1, stdout: '', stderr: 'token: no workspace "nosuchworkspace"\n' });
  });

  it('ledger credit books once per --key: a replay says so and books nothing; threshold sets balance.low', async () => {
    const args = ['credit', '--workspace', workspaceId, '--amount', '500', '--key', 'invoice-7'];
    const first = await cli('ledger', ...args, '--details', 'Invoice 7');
    expect(first).toMatchObject({ code: 0, stderr: '' });
    const booked =
      /^Credited 500 to workspace \w+ in the (embedded )?database.*: entry (\w{24}), balance (-?\d+)\.$/m.exec(
        first.stdout,
      );
    expect(booked).not.toBeNull();
    const [, , entryId, balance] = booked ?? [];
    const again = await cli('ledger', ...args, '--reason', 'REDEMPTION_CODE');
    expect(again).toEqual({
      code: 0,
      stdout: `Key already used: entry ${entryId} stands, nothing more booked; balance ${balance}.\n`,
      stderr: '',
    });
    const threshold = await cli('ledger', 'threshold', '--workspace', workspaceId, '--threshold', '700');
    expect(threshold).toMatchObject({ code: 0, stderr: '' });
    expect(threshold.stdout).toMatch(
      new RegExp(
        `^Workspace ${workspaceId} in the .*: balance\\.low at or under 700 \\(balance ${balance}\\)\\.$`,
        'm',
      ),
    );
    const unknown = await cli(
      'ledger',
      'credit',
      '--workspace',
      'nosuchworkspace',
      '--amount',
      '5',
      '--key',
      'k',
    );
    expect(unknown).toEqual({ code: 1, stdout: '', stderr: 'ledger: no workspace "nosuchworkspace"\n' });
  });

  it.each([
    [
      ['credit', '--workspace', 'w', '--amount', '5'],
      'credit needs --key <idempotency key>: a retry must not credit twice',
    ],
    [['credit', '--workspace', 'w', '--amount', '1.5', '--key', 'k'], 'credit needs --amount <whole number>'],
    [['credit', '--workspace', 'w', '--amount', '0', '--key', 'k'], 'amount must be from 1 to 2147483647'],
    [
      ['credit', '--workspace', 'w', '--amount', '5', '--key', 'k', '--reason', 'VOICE_USAGE'],
      '--reason must be one of INITIAL_BALANCE, PURCHASE_REFILL, SUBSCRIPTION_REFILL, REDEMPTION_CODE',
    ],
    [['credit', '--amount', '5', '--key', 'k'], 'credit needs --workspace <id>'],
    [['threshold', '--workspace', 'w'], 'threshold needs --threshold <whole number>'],
    [['refund'], 'unknown command "refund"'],
  ])('ledger %j fails with the usage text', async (args, message) => {
    const result = await cli('ledger', ...args);
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toContain(
      `ledger: ${message}\n\nUsage:\n  npm run ledger -- credit --workspace <id>`,
    );
    expect(result.stderr).not.toMatch(STACK_FRAME);
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

  it.each([
    [['--scopes', 'sessions:read,agents:delete'], 'unknown scope "agents:delete"'],
    [['--expires-in', '3w'], '--expires-in must be a positive number of days, hours or minutes'],
  ])('token create %j fails with the usage text', async (args, message) => {
    const result = await cli('token', 'create', '--workspace', 'any', ...args);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`token: ${message}`);
    expect(result.stderr).toContain('Usage:\n  npm run token -- create --workspace <id>');
    expect(result.stderr).not.toMatch(STACK_FRAME);
  });
});
