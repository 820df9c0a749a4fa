import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastLine, runCli, STACK_FRAME, TOKEN } from '#test/helpers/cli.ts';
import { type NpmStart, startNpmStart } from '#test/helpers/npm-start.ts';

/**
 * While `npm start` holds the embedded database, the CLIs work through it (its local admin
 * channel, found through the file it announces beside the lock) with nothing to set: no
 * DATABASE_URL, no --stage, no AWS variable. Always on the embedded database: that is the case.
 */
describe('the CLIs beside a running npm start, on its embedded database', () => {
  let dir: string;
  let dataDir: string;
  let server: NpmStart;
  let env: NodeJS.ProcessEnv;
  let workspaceId: string;
  const cli = (script: string, ...args: string[]) => runCli(script, args, env);
  const get = (path: string, token: string) =>
    fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${token}` } });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vaa-beside-'));
    dataDir = join(dir, 'data', 'pglite');
    server = await startNpmStart(dataDir);
    env = { ...process.env, DEBUG: '', PGLITE_DATA_DIR: dataDir };
    delete env.DATABASE_URL;
    for (const key of Object.keys(env)) if (key.startsWith('AWS_')) delete env[key];
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('workspace create and list go through npm start', async () => {
    const created = await cli('workspace', 'create', '--name', 'Beside');
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/through npm start \(http:\/\/127\.0\.0\.1:\d+\)/);
    workspaceId = lastLine(created.stdout);
    const listed = await cli('workspace', 'list');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`^${workspaceId}\\s+Beside\\s`, 'm'));
  });

  it('token create mints a key the running API accepts at once; list and revoke work too', async () => {
    const created = await cli('token', 'create', '--workspace', workspaceId, '--scopes', 'agents:read');
    expect(created.code).toBe(0);
    const token = lastLine(created.stdout);
    expect(token).toMatch(TOKEN);
    expect((await get('/agents', token)).status).toBe(200);
    const keyId = /Created API key (\w+)/.exec(created.stdout)?.[1] ?? '';
    const listed = await cli('token', 'list', '--workspace', workspaceId);
    expect(listed.stdout).toMatch(new RegExp(`^${keyId}\\s`, 'm'));
    expect(await cli('token', 'revoke', keyId)).toMatchObject({ code: 0 });
    expect((await get('/agents', token)).status).toBe(403);
  });

  it('db:seed seeds a workspace the running API serves', async () => {
    const seeded = await cli('seed', '--sessions', '5');
    expect(seeded.code).toBe(0);
    expect(seeded.stdout).toMatch(/5 sessions/);
    const token = lastLine(seeded.stdout);
    const sessions = await get('/sessions', token);
    expect(sessions.status).toBe(200);
    expect(await sessions.json()).toHaveLength(5);
  });

  it('sessions:sweep runs the housekeeping in npm start', async () => {
    const swept = await cli('sweep');
    expect(swept.stderr).toBe('');
    expect(swept.code).toBe(0);
    expect(swept.stdout).toMatch(/^Completed \d+ stale session\(s\) and purged \d+ .* through npm start/);
  });

  it('a refused command is a message, not a stack trace', async () => {
    const result = await cli('token', 'create', '--workspace', 'cn750b0sc9sxz2q5csbj65v5');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^token: /);
    expect(result.stderr).not.toMatch(STACK_FRAME);
  });

  it('once npm start stops, its announcement is gone and the CLIs open the database themselves', async () => {
    await server.stop();
    expect(existsSync(`${dataDir}.server.json`)).toBe(false);
    const listed = await cli('workspace', 'list');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/Beside/);
    expect(listed.stdout).not.toMatch(/through npm start/);
  });
});
