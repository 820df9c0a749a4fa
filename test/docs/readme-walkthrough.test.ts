import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeList } from '#contract/routes.ts';
import { repoRoot } from '#infra/stage-name.ts';
import { type NpmStart, startNpmStart } from '#test/helpers/npm-start.ts';

/**
 * README.md's walk-through, run as a newcomer runs it: `npm start` on a fresh embedded database,
 * then the section's shell blocks in order, in one bash (`set -euo pipefail`) in a folder whose
 * `.data/` is that server's, with curl. Fails if a command exits non-zero (every `curl -f` on an
 * error answer), or a call shown to fail (`→ 412`) answers another status.
 */
const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
const section = /^## A walk through with curl\n([\s\S]*?)^## /m.exec(readme)?.[1] ?? '';
const blocks = [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? '');
/** Each command, its continuation lines joined. */
const commands = blocks.flatMap((block) => block.replace(/\\\n/g, ' ').split('\n'));
const curls = commands.filter((c) => /^\s*(?:[A-Z0-9_]+=\$\()?curl /.test(c));
const expectedStatuses = commands.flatMap((c) => [...c.matchAll(/# → (\d{3})\b/g)].map((m) => m[1]));

describe("README.md's walk-through, run against npm start", () => {
  let dir: string;
  let server: NpmStart;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vaa-readme-'));
    server = await startNpmStart(join(dir, '.data', 'pglite'));
  });
  afterAll(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('shows every route of the route table', () => {
    expect(blocks.length).toBeGreaterThan(5);
    const text = blocks.join('\n');
    const missing = routeList.filter((route) => {
      // `/agents/{agentId}/versions` → `"$API/agents/$AGENT_ID/versions` or the like, method shown.
      const path = route.path.replace(/\{[^}]+\}/g, '\\$[A-Z0-9_]+').replaceAll('/', '\\/');
      const pattern = new RegExp(`\\$API${path}(?:[?"]|$)`, 'm');
      const method = route.method === 'GET' ? '' : `-X ${route.method}`;
      return !text
        .replace(/\\\n/g, ' ')
        .split('\n')
        .some(
          (line) => pattern.test(line) && (method ? line.includes(method) : !/-X (POST|PATCH)/.test(line)),
        );
    });
    expect(missing.map((r) => `${r.method} ${r.path}`)).toEqual([]);
  });

  it('lets every curl either fail on an error answer (-f) or say the status it shows (→ NNN)', () => {
    const unchecked = curls.filter((c) => !/ -f\w* /.test(c) && !/# → \d{3}/.test(c));
    expect(unchecked).toEqual([]);
    expect(expectedStatuses.length).toBeGreaterThan(0);
  });

  it('runs every block in order, each command succeeding and each shown failure answering its status', async () => {
    const script = ['set -euo pipefail', ...blocks].join('\n');
    const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>(
      (resolve) => {
        execFile(
          'bash',
          ['-c', script],
          { cwd: dir, env: { ...process.env, API: server.url }, maxBuffer: 16 * 1024 * 1024 },
          (error, out, err) =>
            resolve({ code: error ? Number(error.code ?? 1) : 0, stdout: out, stderr: err }),
        );
      },
    );
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    // The statuses the -w '%{http_code}' calls printed, each on a line of its own.
    expect(stdout.split('\n').filter((line) => /^\d{3}$/.test(line))).toEqual(expectedStatuses);
    // It went through: the session it recorded is completed with its usage, the feed shows it.
    expect(stdout).toMatch(/"status":"COMPLETED"/);
    expect(stdout).toMatch(/"type":"session\.completed"/);
    expect(stdout).toMatch(/"operation":"publish-agent"/);
  });
});
