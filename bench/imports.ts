import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type BaselineTree, openBaselineTree, resolveAutoBaseline } from './baseline-tree.ts';
import { IMPORT_OVER_EMPTY_MS } from './budgets.ts';
import { type BundleReport, floorsOf, isFloor, measureBundles } from './bundles.ts';
import { formatBundles, signed } from './report.ts';

/**
 * `npx tsx bench/imports.ts [--runs 21] [--baseline <ref>|auto]`: the bench's bundles-and-imports
 * part alone (no database, no load): every function bundled as the stack bundles it, each import
 * timed in a fresh `node`, round-robin, medians; with a baseline, that commit's bundles built in
 * its own worktree and timed in the same rounds. A minute or two; the machine's noise moves every
 * figure by a few milliseconds, the differences within one run less.
 */
const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { runs: { type: 'string', default: '21' }, baseline: { type: 'string' } },
});
const REPO = join(dirname(fileURLToPath(import.meta.url)), '..');
const log = (line: string) => process.stderr.write(`[imports] ${line}\n`);
const ref = values.baseline === 'auto' ? resolveAutoBaseline(REPO)?.ref : values.baseline;
const tree: BaselineTree | undefined = ref
  ? openBaselineTree(REPO, ref, {
      log,
      install: (dir) =>
        execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--prefer-offline'], {
          cwd: dir,
          stdio: ['ignore', 2, 2],
        }),
    })
  : undefined;
const out = mkdtempSync(join(tmpdir(), 'vaa-imports-'));
try {
  log(
    `bundling${tree ? ` this tree and ${ref} (${tree.commit.slice(0, 10)})` : ''}, ${values.runs} rounds of imports …`,
  );
  const { current, baseline } = await measureBundles(out, Number(values.runs), tree?.dir);
  const functions = current.filter((b) => !isFloor(b.name));
  const floors = floorsOf(current);
  const overFloor = (floor: BundleReport | undefined) =>
    functions.map((b) => b.importMs - (floor?.importMs ?? 0));
  const range = (xs: number[]) => `${signed(Math.min(...xs), 1)} … ${signed(Math.max(...xs), 1)} ms`;
  const overEmpty = overFloor(floors.empty);
  process.stdout.write(
    `${formatBundles(current, baseline)}\n\nover the empty handler: ${range(overEmpty)} (budget ≤ +${IMPORT_OVER_EMPTY_MS} ms: ${
      overEmpty.filter((x) => x > IMPORT_OVER_EMPTY_MS).length
    } over); over the postgres.js handler (the functions' own code): ${range(overFloor(floors.driver))}\n`,
  );
} finally {
  rmSync(out, { recursive: true, force: true });
  tree?.close();
}
