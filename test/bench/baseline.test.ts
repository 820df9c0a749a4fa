import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  commitOf,
  copyChildScripts,
  openBaselineTree,
  resolveAutoBaseline,
  sameDependencies,
} from '../../bench/baseline-tree.ts';
import { measureBundles } from '../../bench/bundles.ts';
import type { OperationResult } from '../../bench/measure.ts';
import { turns } from '../../bench/measure.ts';
import { parseOptions } from '../../bench/plan.ts';
import { baselineDeltas, formatBaselineDeltas, formatBundles } from '../../bench/report.ts';
import type { Stats } from '../../bench/stats.ts';

// A tiny repository per test: the bench's own git calls, on history made here.
const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'bench',
      GIT_AUTHOR_EMAIL: 'bench@example.com',
      GIT_COMMITTER_NAME: 'bench',
      GIT_COMMITTER_EMAIL: 'bench@example.com',
    },
  }).trim();

function repository() {
  const dir = mkdtempSync(join(tmpdir(), 'vaa-baseline-test-'));
  made.push(dir);
  git(dir, 'init', '-q', '-b', 'main');
  return dir;
}

function commit(dir: string, files: Record<string, string>, message: string) {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', message);
  return git(dir, 'rev-parse', 'HEAD');
}

const worktrees = (dir: string) =>
  git(dir, 'worktree', 'list', '--porcelain')
    .split('\n')
    .filter((line) => line.startsWith('worktree '));

describe('--baseline auto: which commit CI compares with', () => {
  it('takes the last tag reachable from HEAD', () => {
    const repo = repository();
    commit(repo, { 'a.txt': '1' }, 'one');
    commit(repo, { 'a.txt': '2' }, 'two');
    git(repo, 'tag', 'v1.0.0');
    commit(repo, { 'a.txt': '3' }, 'three');
    expect(resolveAutoBaseline(repo)).toEqual({ ref: 'v1.0.0', why: 'the last tagged release' });
  });

  it('without a tag, takes the merge base with main when HEAD is a branch off it', () => {
    const repo = repository();
    commit(repo, { 'a.txt': '1' }, 'one');
    const base = commit(repo, { 'a.txt': '2' }, 'two');
    git(repo, 'checkout', '-q', '-b', 'feature');
    commit(repo, { 'b.txt': '1' }, 'feature one');
    commit(repo, { 'b.txt': '2' }, 'feature two');
    expect(resolveAutoBaseline(repo)).toEqual({ ref: base, why: 'the merge base with main' });
  });

  it('on main itself (no tag; the merge base is HEAD), takes HEAD~1', () => {
    const repo = repository();
    const first = commit(repo, { 'a.txt': '1' }, 'one');
    commit(repo, { 'a.txt': '2' }, 'two');
    const resolved = resolveAutoBaseline(repo);
    expect(resolved?.ref).toBe('HEAD~1');
    expect(commitOf(repo, resolved?.ref ?? '')).toBe(first);
  });

  it('finds nothing on a single commit (or a shallow clone that lacks the parent)', () => {
    const repo = repository();
    commit(repo, { 'a.txt': '1' }, 'one');
    expect(resolveAutoBaseline(repo)).toBeUndefined();
    expect(commitOf(repo, 'no-such-ref')).toBeUndefined();
  });

  it('reads --baseline from the command line', () => {
    expect(parseOptions(['--quick', '--baseline', 'ffbf8bd']).baseline).toBe('ffbf8bd');
    expect(parseOptions(['--quick']).baseline).toBeUndefined();
  });
});

describe("the baseline's worktree", () => {
  const lock = (version: string) => JSON.stringify({ name: 'x', lockfileVersion: 3, packages: { version } });

  it('reuses node_modules when the lock file and the patches are the same, and removes the tree on close', () => {
    const repo = repository();
    const first = commit(
      repo,
      { 'package-lock.json': lock('1'), 'patches/p+1.patch': 'a', 'src.ts': 'old' },
      'one',
    );
    commit(repo, { 'src.ts': 'new' }, 'two');
    mkdirSync(join(repo, 'node_modules', 'dep'), { recursive: true });
    writeFileSync(join(repo, 'node_modules', 'dep', 'index.js'), 'installed');
    const installs: string[] = [];
    const tree = openBaselineTree(repo, 'HEAD~1', { install: (dir) => installs.push(dir) });
    try {
      expect(tree.commit).toBe(first);
      expect(tree.dependencies).toBe('reused');
      expect(installs).toEqual([]);
      // The baseline's own code, the working tree's dependencies.
      expect(readFileSync(join(tree.dir, 'src.ts'), 'utf8')).toBe('old');
      expect(lstatSync(join(tree.dir, 'node_modules')).isSymbolicLink()).toBe(true);
      expect(readFileSync(join(tree.dir, 'node_modules', 'dep', 'index.js'), 'utf8')).toBe('installed');
      expect(worktrees(repo)).toHaveLength(2);
      const scripts = copyChildScripts(tree.dir, ['child.ts']);
      expect(readFileSync(join(scripts, 'child.ts'), 'utf8')).toContain('serveCommands');
      // The modules beside them that the scripts import go too, at any depth, and nothing else.
      copyChildScripts(tree.dir, ['bundles-build.ts']);
      expect(readdirSync(scripts).sort()).toEqual(
        [
          'baseline-tree.ts',
          'bundles-build.ts',
          'bundles.ts',
          'child.ts',
          'stats.ts',
          'wait-events.ts',
        ].sort(),
      );
    } finally {
      tree.close();
    }
    expect(existsSync(tree.dir)).toBe(false);
    expect(worktrees(repo)).toHaveLength(1);
    // The working tree's node_modules survive the link's removal.
    expect(existsSync(join(repo, 'node_modules', 'dep', 'index.js'))).toBe(true);
    tree.close(); // a second close (the exit handler's) is harmless
  });

  it('installs when the lock file differs, or only a patch does', () => {
    const repo = repository();
    commit(repo, { 'package-lock.json': lock('1'), 'patches/p+1.patch': 'a' }, 'one');
    commit(repo, { 'patches/p+1.patch': 'b' }, 'patch changed');
    commit(repo, { 'package-lock.json': lock('2') }, 'lock changed');
    mkdirSync(join(repo, 'node_modules'));
    for (const ref of ['HEAD~1', 'HEAD~2']) {
      const installs: string[] = [];
      const tree = openBaselineTree(repo, ref, { install: (dir) => installs.push(dir) });
      tree.close();
      expect(tree.dependencies).toBe('installed');
      expect(installs).toEqual([tree.dir]);
    }
    expect(sameDependencies(repo, repo)).toBe(true);
  });

  it('removes the tree when installing fails, and refuses a ref that names no commit', () => {
    const repo = repository();
    commit(repo, { 'package-lock.json': lock('1') }, 'one');
    commit(repo, { 'package-lock.json': lock('2') }, 'two');
    let dir = '';
    expect(() =>
      openBaselineTree(repo, 'HEAD~1', {
        install: (d) => {
          dir = d;
          throw new Error('npm ci failed');
        },
      }),
    ).toThrow('npm ci failed');
    expect(dir).not.toBe('');
    expect(existsSync(dir)).toBe(false);
    expect(worktrees(repo)).toHaveLength(1);
    expect(() => openBaselineTree(repo, 'v9', { install: () => {} })).toThrow(/no such commit/);
  });

  it('is removed when the process exits without closing it (Ctrl-C turned into an exit)', () => {
    const repo = repository();
    commit(repo, { 'package-lock.json': lock('1') }, 'one');
    commit(repo, { 'a.txt': '2' }, 'two');
    const module = new URL('../../bench/baseline-tree.ts', import.meta.url).href;
    const script = `import { openBaselineTree } from ${JSON.stringify(module)};
const tree = openBaselineTree(${JSON.stringify(repo)}, 'HEAD~1', { install: () => {} });
process.stdout.write(tree.dir);
process.kill(process.pid, 'SIGINT');
setTimeout(() => {}, 10_000);`;
    const run = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `process.once('SIGINT', () => process.exit(130));\n${script}`,
      ],
      { encoding: 'utf8' },
    );
    expect(run.status).toBe(130);
    const dir = run.stdout.trim();
    expect(dir).toMatch(/vaa-baseline-/);
    expect(existsSync(dir)).toBe(false);
    expect(worktrees(repo)).toHaveLength(1);
  });
});

const stats = (rps: number, extra: Partial<Stats> = {}): Stats => ({
  requests: rps * 10,
  seconds: 10,
  rps,
  p50: 1000 / rps,
  p99: 2000 / rps,
  mean: 1000 / rps,
  errors: 0,
  ...extra,
});

const statement = { query: 'select 1', parameters: [] };

function result(name: string, api: Stats, baseline: OperationResult['baseline']): OperationResult {
  return {
    name,
    api,
    driver: api,
    slices: [],
    statements: [statement],
    main: statement,
    statementsUnderLoad: 1,
    memory: [],
    memoryAfterFullGc: [],
    peakRssMb: 100,
    ...(baseline ? { baseline } : {}),
  };
}

describe('the deltas against the baseline', () => {
  it('divides the working tree’s figures by the baseline’s, per operation', () => {
    const results = [
      result('GET /sessions limit 25', stats(218, { dbCpuMsPerRequest: 3, cpuMsPerRequest: 1 }), {
        api: stats(292, { dbCpuMsPerRequest: 2.4, cpuMsPerRequest: 1.25 }),
        statements: [statement, statement],
        main: statement,
        statementsUnderLoad: 2,
      }),
      result('GET /usage', stats(100), { skipped: 'the baseline did not answer: GET /usage: 404 {}' }),
      result('GET /agents', stats(50), undefined),
    ];
    const [page, usage, ...rest] = baselineDeltas(results);
    expect(rest).toEqual([]);
    expect(page?.rps).toEqual({ current: 218, baseline: 292, ratio: 218 / 292 });
    expect(page?.dbCpu.ratio).toBeCloseTo(1.25);
    expect(page?.cpu.ratio).toBeCloseTo(0.8);
    expect(page?.p50.ratio).toBeCloseTo(292 / 218);
    expect(page?.statements).toEqual({ current: 1, baseline: 2, ratio: 0.5 });
    expect(usage?.skipped).toMatch(/404/);
    expect(usage?.rps.ratio).toBeNaN();

    const text = formatBaselineDeltas(results, 'ffbf8bd');
    expect(text).toContain('Against the baseline ffbf8bd');
    const line = text.split('\n').find((l) => l.startsWith('GET /sessions limit 25')) ?? '';
    expect(line.split(/\s{2,}/).slice(1, 7)).toEqual(['218', '292', '0.75', '3.00', '2.40', '1.25']);
    expect(line).toContain('statements 2 → 1');
    expect(text).toMatch(/GET \/usage\s+\(the baseline did not answer/);
    expect(text).not.toContain('GET /agents');
  });
});

describe('the order of the slices', () => {
  it('takes every target once per round, reversing every other round: the API and its baseline A B, B A', () => {
    expect(turns(['api', 'baseline', 'bare', 'driver'], 4).join(' ')).toBe(
      'api baseline bare driver driver bare baseline api api baseline bare driver driver bare baseline api',
    );
    const order = turns(['api', 'baseline', 'driver'], 6).filter((t) => t !== 'driver');
    // As often first as second in their pair, never two of one in a row without the other between.
    expect(order.join(' ')).toBe(
      'api baseline baseline api api baseline baseline api api baseline baseline api',
    );
  });
});

describe("the baseline's bundles", () => {
  it("are built in the baseline's tree by its own route table, timed beside the working tree's, and reported side by side", async () => {
    const repo = join(import.meta.dirname, '../..');
    const tree = openBaselineTree(repo, 'HEAD', {
      install: () => {
        throw new Error('HEAD installs what the working tree has: its node_modules are reused');
      },
    });
    const out = mkdtempSync(join(tmpdir(), 'vaa-bundles-'));
    try {
      // Every bundle is built in both trees; two are timed (each timing is a process of its own).
      const timed = new Set(['list-sessions', 'authorizer']);
      const { current, baseline } = await measureBundles(out, 1, tree.dir, (name) => timed.has(name));
      expect(current.map((b) => b.name).sort()).toEqual([
        'authorizer',
        'empty-handler',
        'list-sessions',
        'postgres-handler',
      ]);
      // HEAD's route table is the working tree's (a test run commits nothing): the same functions.
      expect(baseline.map((b) => b.name).sort()).toEqual(current.map((b) => b.name).sort());
      expect(readdirSync(join(out, 'baseline')).sort()).toEqual(readdirSync(join(out, 'current')).sort());
      expect(readdirSync(join(out, 'current')).length).toBeGreaterThan(20);
      for (const b of baseline) expect(b.importMs, b.name).toBeGreaterThan(0);
      const text = formatBundles(current, baseline);
      expect(text.split('\n')[0]).toContain('baseline: size kB  +empty  Δ import ms');
      expect(
        text
          .split('\n')
          .find((l) => l.startsWith('list-sessions'))
          ?.split(/\s+/),
      ).toHaveLength(12);
    } finally {
      rmSync(out, { recursive: true, force: true });
      tree.close();
    }
  }, 600_000);
});
