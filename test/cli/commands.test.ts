import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyCliDatabase, lastLine, runCli, STACK_FRAME } from '#test/helpers/cli.ts';

/**
 * The operator's commands beyond the first steps (test/cli/cli.test.ts), as a user runs them in
 * child processes on a migrated database of their own: workspaces and their tier, credits and the
 * low-balance threshold, and every usage error, which is answered before a database is opened.
 */
describe('command-line tools: workspaces, credits and usage errors', () => {
  let env: NodeJS.ProcessEnv;
  let remove: () => Promise<void>;

  const cli = (script: string, ...args: string[]) => runCli(script, args, env);

  beforeAll(async () => {
    ({ env, remove } = await emptyCliDatabase());
    const migrated = await cli('migrate');
    expect(migrated, migrated.stderr).toMatchObject({ code: 0 });
  });
  afterAll(() => remove());

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
    const workspaceId = lastLine((await cli('workspace', 'create', '--name', 'Ledger')).stdout);
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
