import { execFileSync, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

/**
 * `--baseline <ref>`: another commit of this repository checked out in a temporary git worktree,
 * with its own dependencies, so its gateway runs its own code (its package.json `imports` map
 * resolves `#functions/*` and the rest inside it) against the same database as the working tree's.
 */
export interface BaselineTree {
  /** The ref as given, and the commit it named. */
  ref: string;
  commit: string;
  dir: string;
  /** How its node_modules came to be: the working tree's reused, or its own `npm ci`. */
  dependencies: 'reused' | 'installed';
  /** Removes the worktree (idempotent; also runs when the process exits). */
  close: () => void;
}

const git = (cwd: string, args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

const gitOrUndefined = (cwd: string, args: string[]) => {
  try {
    return git(cwd, args) || undefined;
  } catch {
    return undefined;
  }
};

/** The commit `ref` names, or undefined when it names none here (unknown, or cut off by a shallow clone). */
export const commitOf = (repo: string, ref: string) =>
  gitOrUndefined(repo, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);

/**
 * The baseline CI compares with (`--baseline auto`): the last tagged release reachable from HEAD;
 * else the merge base with main (local or origin's) when it is not HEAD itself; else HEAD~1. Each
 * candidate must name a commit here (a shallow clone may lack it). Undefined: nothing to compare.
 */
export function resolveAutoBaseline(repo: string): { ref: string; why: string } | undefined {
  const tag = gitOrUndefined(repo, ['describe', '--tags', '--abbrev=0', 'HEAD']);
  if (tag && commitOf(repo, tag)) return { ref: tag, why: 'the last tagged release' };
  const head = commitOf(repo, 'HEAD');
  for (const main of ['main', 'origin/main']) {
    if (!commitOf(repo, main)) continue;
    const base = gitOrUndefined(repo, ['merge-base', 'HEAD', main]);
    if (base && base !== head) return { ref: base, why: `the merge base with ${main}` };
  }
  if (commitOf(repo, 'HEAD~1')) return { ref: 'HEAD~1', why: 'no tag and no merge base other than HEAD' };
  return undefined;
}

/** Every file whose content decides what `npm ci` installs: the lock file and the patches applied after it. */
function dependencyFiles(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  const add = (path: string) => {
    if (existsSync(path)) files.set(relative(dir, path), readFileSync(path, 'utf8'));
  };
  add(join(dir, 'package-lock.json'));
  const patches = join(dir, 'patches');
  if (existsSync(patches)) for (const name of readdirSync(patches).sort()) add(join(patches, name));
  return files;
}

/** Whether two trees' `npm ci` installs the same: the same lock file and the same patches. */
export function sameDependencies(a: string, b: string): boolean {
  const [x, y] = [dependencyFiles(a), dependencyFiles(b)];
  if (!x.has('package-lock.json') || x.size !== y.size) return false;
  return [...x].every(([path, text]) => y.get(path) === text);
}

/**
 * Checks `ref` out in a temporary worktree of `repo` (detached) and gives it dependencies: a link
 * to `repo`'s own node_modules when both install the same, else `install` run inside it (the
 * bench passes `npm ci`). The worktree is removed by `close()`, on failure here, and at exit
 * (Ctrl-C included), so an interrupted run leaves none behind.
 */
export function openBaselineTree(
  repo: string,
  ref: string,
  options: { install: (dir: string) => void; log?: (line: string) => void },
): BaselineTree {
  const commit = commitOf(repo, ref);
  if (!commit) throw new Error(`--baseline ${ref}: no such commit here (a shallow clone lacks history)`);
  const parent = mkdtempSync(join(tmpdir(), 'vaa-baseline-'));
  const dir = join(parent, 'tree');
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    process.removeListener('exit', close);
    // --force: the tree holds node_modules (or its link) and the child script, both untracked.
    spawnSync('git', ['worktree', 'remove', '--force', dir], { cwd: repo, stdio: 'ignore' });
    rmSync(parent, { recursive: true, force: true });
    spawnSync('git', ['worktree', 'prune'], { cwd: repo, stdio: 'ignore' });
  };
  process.once('exit', close);
  try {
    git(repo, ['worktree', 'add', '--detach', dir, commit]);
    const reuse = existsSync(join(repo, 'node_modules')) && sameDependencies(repo, dir);
    if (reuse) symlinkSync(join(repo, 'node_modules'), join(dir, 'node_modules'), 'dir');
    else {
      options.log?.(`baseline ${ref}: its lock file or patches differ, installing its dependencies …`);
      options.install(dir);
    }
    return { ref, commit, dir, dependencies: reuse ? 'reused' : 'installed', close };
  } catch (error) {
    close();
    throw error;
  }
}

/**
 * Copies `entries` (scripts beside this module) and every module beside it they import, at any
 * depth (static and dynamic imports of `./…`), into `tree`'s `.bench-child/`: the baseline runs the
 * working tree's child scripts, whose `#…` imports then resolve to the baseline's own code.
 * Returns the directory.
 */
export function copyChildScripts(tree: string, entries: string[]): string {
  const target = join(tree, '.bench-child');
  mkdirSync(target, { recursive: true });
  const pending = [...entries];
  const copied = new Set<string>();
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (copied.has(file)) continue;
    copied.add(file);
    const source = new URL(file, import.meta.url);
    copyFileSync(source, join(target, file));
    for (const [, local] of readFileSync(source, 'utf8').matchAll(/(?:from|import\()\s*'\.\/([\w.-]+\.ts)'/g))
      if (local) pending.push(local);
  }
  return target;
}
