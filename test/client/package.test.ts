import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '#db/client.ts';
import { silentLogger } from '#functions/http/log.ts';
import { type Gateway, startGateway } from '#infra/local/gateway.ts';
import { repoRoot } from '#infra/stage-name.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { createTenant, type Tenant } from '#test/helpers/tenants.ts';

const run = promisify(execFile);
const bin = (name: string) => join(repoRoot, 'node_modules/.bin', name);

/**
 * client/ as a package: built to JavaScript with declarations, packed by `npm pack`, installed
 * from the tarball into an empty project (its one dependency, openapi-fetch, from the npm cache or
 * the registry), then used against a running local API from plain Node ESM, and from TypeScript
 * under strict `tsc`, with nothing of this repository but the tarball.
 */
describe('the client as a package (@voice-agent-admin/client)', () => {
  let dir: string;
  let project: string;
  let tarball: string;
  let database: DatabaseHandle;
  let gateway: Gateway;
  let tenant: Tenant;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vaa-client-pkg-'));
    await run(bin('tsc'), ['-p', 'client/tsconfig.json'], { cwd: repoRoot });
    const packed = await run('npm', ['pack', './client', '--pack-destination', dir, '--json'], {
      cwd: repoRoot,
    });
    const [{ filename }] = JSON.parse(packed.stdout) as [{ filename: string }];
    tarball = join(dir, filename);
    project = join(dir, 'consumer');
    mkdirSync(project);
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
    );
    await run(
      'npm',
      ['install', tarball, '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'],
      {
        cwd: project,
      },
    );
    database = await freshDatabase();
    tenant = await createTenant(database.db);
    gateway = await startGateway({ deps: { database, logger: silentLogger } });
  }, 300_000);
  afterAll(async () => {
    await gateway?.close();
    await database?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('packs JavaScript and declarations only, named and licensed', async () => {
    const { stdout } = await run('tar', ['-tzf', tarball]);
    const files = stdout.trim().split('\n').sort();
    expect(files).toContain('package/dist/index.js');
    expect(files).toContain('package/dist/index.d.ts');
    expect(files).toContain('package/package.json');
    expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
    const installed = JSON.parse(
      readFileSync(join(project, 'node_modules/@voice-agent-admin/client/package.json'), 'utf8'),
    );
    expect(installed).toMatchObject({ name: '@voice-agent-admin/client', license: 'Apache-2.0' });
    expect(Object.keys(installed.dependencies)).toEqual(['openapi-fetch']);
    expect(readdirSync(join(project, 'node_modules'))).toContain('openapi-fetch');
  });

  it('calls the running API from plain Node (ESM), problems thrown as ApiProblem', async () => {
    writeFileSync(
      join(project, 'use.mjs'),
      `import { ApiProblem, createClient } from '@voice-agent-admin/client';
const api = createClient({ baseUrl: process.env.API_URL, token: process.env.TOKEN });
const agent = await api.agents.create({ name: 'Packaged' }, { idempotencyKey: 'packaged-1' });
const page = await api.agents.list({ limit: 10, includeTotal: true });
let problem;
try {
  await api.agents.list({ limit: 500 });
} catch (error) {
  problem = error instanceof ApiProblem ? { status: error.status, path: error.errors?.[0]?.path } : String(error);
}
console.log(JSON.stringify({ agent: { name: agent.name, slug: agent.slug }, total: page.total, ids: page.items.map((a) => a.id), created: agent.id, problem }));
`,
    );
    const { stdout } = await run('node', ['use.mjs'], {
      cwd: project,
      env: { ...process.env, API_URL: gateway.url, TOKEN: tenant.token },
    });
    const result = JSON.parse(stdout);
    expect(result.agent).toEqual({ name: 'Packaged', slug: 'packaged' });
    expect(result.total).toBe(1);
    expect(result.ids).toEqual([result.created]);
    expect(result.problem).toEqual({ status: 400, path: 'limit' });
  });

  it('type-checks a consumer under strict tsc, and refuses a wrong call', async () => {
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          lib: ['ES2023', 'DOM'],
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noUncheckedIndexedAccess: true,
          exactOptionalPropertyTypes: true,
          noEmit: true,
          types: [],
        },
        files: ['consumer.ts'],
      }),
    );
    writeFileSync(
      join(project, 'consumer.ts'),
      `import { type Agent, ApiProblem, createClient, type Session } from '@voice-agent-admin/client';
const api = createClient({ baseUrl: 'http://127.0.0.1:3000', token: 'vak_x' });
export async function names(): Promise<string[]> {
  const page = await api.agents.list({ status: ['DRAFT'], limit: 10 });
  const first: Agent | undefined = page.items[0];
  const sessions: Session[] = (await api.sessions.list({ cursor: '' })).items;
  try {
    await api.agents.create({ name: 'Typed' });
  } catch (error) {
    if (error instanceof ApiProblem) return [String(error.status)];
  }
  return [first?.name ?? '', ...sessions.map((s) => s.id)];
}
// @ts-expect-error limit is a number
await api.agents.list({ limit: 'ten' });
// @ts-expect-error no such status
await api.agents.list({ status: ['DELETED'] });
`,
    );
    const checked = await run(bin('tsc'), ['-p', 'tsconfig.json'], { cwd: project }).catch(
      (error: { stdout: string }) => ({ stdout: error.stdout, failed: true }),
    );
    // The two @ts-expect-error lines also make it fail if the declarations were missing (`any`).
    expect(checked.stdout).toBe('');
    expect('failed' in checked).toBe(false);
  });
});
