import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from '#db/client.ts';
import { rowsOf } from '#db/queries/rows.ts';
import { silentLogger } from '#functions/http/log.ts';
import { type Gateway, startGateway } from '#infra/local/gateway.ts';
import { createRateLimiter } from '#infra/local/rate-limit.ts';
import { type LocalStage, startLocalStage } from '#local-aws/local-stage.ts';
import { awsEnv, closedPort, lastLine, runCli } from '#test/helpers/cli.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { createTenant } from '#test/helpers/tenants.ts';

const SUMMARY = /^(\d+) passed, (\d+) failed, (\d+) skipped$/;

/** `npm run smoke` against a local gateway: passing against a healthy API, failing against a broken one. */
describe('npm run smoke', () => {
  let handle: DatabaseHandle;
  let gateway: Gateway;
  let env: NodeJS.ProcessEnv;
  let stages: { preview: LocalStage; prod: LocalStage };

  beforeAll(async () => {
    handle = await freshDatabase();
    const deps = { database: handle, logger: silentLogger };
    gateway = await startGateway({ deps });
    stages = {
      preview: await startLocalStage({ deps, apiUrl: gateway.url, stage: 'pr-9' }),
      prod: await startLocalStage({ deps, apiUrl: gateway.url, stage: 'prod', demoSeed: false }),
    };
    env = awsEnv(stages.preview.env);
  });
  afterAll(async () => {
    await stages?.prod.close();
    await stages?.preview.close();
    await gateway?.close();
    await handle?.close();
  });

  it('passes with --url, --token and --write on a fresh workspace, skipping what it cannot mint', async () => {
    const tenant = await createTenant(handle.db);
    const result = await runCli('smoke', ['--url', gateway.url, '--token', tenant.token, '--write'], env);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines.filter((l) => l.startsWith('pass '))).toHaveLength(24);
    expect(lines).toContainEqual(
      expect.stringMatching(/^skip {2}a key without agents:read: .*needs the admin function/),
    );
    expect(lastLine(result.stdout)).toBe('24 passed, 0 failed, 1 skipped');
    expect(result.stdout).toMatch(
      /^pass {2}GET \/events .*: 200, Link and X-Next-Cursor .*this run's 10 events, each once$/m,
    );
    const [agents] = rowsOf<{ n: number }>(
      await handle.db.execute(
        sql`select count(*)::int as n from agents where workspace_id = ${tenant.workspaceId}`,
      ),
    );
    expect(agents?.n).toBe(2); // one created, one created then replayed
  });

  it('with --limits checks the 429 past the tier: passes where limits are on, fails where they are off', async () => {
    const limited = await startGateway({
      deps: { database: handle, logger: silentLogger },
      limits: createRateLimiter(),
    });
    try {
      const tenant = await createTenant(handle.db);
      const on = await runCli('smoke', ['--url', limited.url, '--token', tenant.token, '--limits'], env);
      expect(on.stdout).toMatch(/^pass {2}limits: .*: \d+ of \d+ refused, Retry-After 1; 200 after it$/m);
      expect(on.code).toBe(0);
      const off = await runCli('smoke', ['--url', gateway.url, '--token', tenant.token, '--limits'], env);
      expect(off.stdout).toMatch(/^FAIL {2}limits: .*600 requests in waves of 150, and not one 429/m);
      expect(off.code).toBe(1);
    } finally {
      await limited.close();
    }
  });

  it('passes with --stage --write, minting its keys through the admin function and revoking them', async () => {
    const result = await runCli('smoke', ['--stage', 'pr-9', '--write'], env);
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(/^(skip|FAIL)/m);
    expect(lastLine(result.stdout)).toBe('25 passed, 0 failed, 0 skipped');
    const keys = rowsOf<{ name: string; revoked: boolean; lifetime: number }>(
      await handle.db.execute(sql`select name, revoked_at is not null as revoked,
        extract(epoch from expires_at - created_at)::int as lifetime from api_keys where name like 'smoke %'`),
    );
    expect(keys).toHaveLength(2);
    for (const key of keys) expect(key).toMatchObject({ revoked: true, lifetime: 1800 });
  });

  it('passes read-only with --stage prod, reusing its smoke workspace and writing no agent', async () => {
    const result = await runCli('smoke', ['--stage', 'prod'], { ...env, ...stages.prod.env });
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(/POST/);
    expect(lastLine(result.stdout)).toMatch(SUMMARY);
    // The summary counts the skips the lines above it show.
    const skips = result.stdout.split('\n').filter((line) => line.startsWith('skip ')).length;
    expect(lastLine(result.stdout)).toMatch(new RegExp(` 0 failed, ${skips} skipped$`));
    const [smoke] = rowsOf<{ n: number }>(
      await handle.db.execute(sql`select count(*)::int as n from workspaces where name = 'Smoke tests'`),
    );
    expect(smoke?.n).toBe(1);
  });

  it('fails every check, visibly, against a closed port', async () => {
    const port = await closedPort();
    const result = await runCli('smoke', ['--url', `http://127.0.0.1:${port}`, '--token', 'vak_x'], env);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /^FAIL {2}GET \/agents answers a list of agents: http:\/\/127\.0\.0\.1:\d+ did not answer: ECONNREFUSED$/m,
    );
    const [, passed, failed] = SUMMARY.exec(lastLine(result.stdout)) ?? [];
    expect(passed).toBe('0');
    expect(failed).toBe('14');
  });

  it('fails, visibly, against a gateway whose database is gone', async () => {
    const doomed = await freshDatabase();
    const tenant = await createTenant(doomed.db);
    // Postgres: the gateway has connections of its own to this test's database, which is then
    // dropped under it; PGlite: the embedded database the gateway uses is closed.
    const served = doomed.url
      ? await openDatabase({ kind: 'postgres', url: doomed.url, poolMax: 2 })
      : doomed;
    const broken = await startGateway({ deps: { database: served, logger: silentLogger } });
    try {
      await doomed.close();
      const result = await runCli('smoke', ['--url', broken.url, '--token', tenant.token, '--write'], env);
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(
        /^FAIL {2}GET \/agents answers a list of agents: expected 200, got 5\d\d/m,
      );
      expect(result.stdout).toMatch(/^pass {2}no token: 401/m); // the gateway itself still answers
      const [, , failed] = SUMMARY.exec(lastLine(result.stdout)) ?? [];
      expect(Number(failed)).toBeGreaterThanOrEqual(4);
    } finally {
      await broken.close();
      if (served !== doomed) await served.close();
    }
  });

  it('refuses contradictory or missing options with the usage text', async () => {
    for (const args of [
      [],
      ['--url', gateway.url],
      ['--stage', 'pr-9', '--token', 't'],
      ['--url', 'ftp://x', '--token', 't'],
    ]) {
      const result = await runCli('smoke', args, env);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toContain('Usage:');
    }
  });
});
