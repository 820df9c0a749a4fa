/**
 * The stage (stack-name fragment) a branch deploys to, as infra/stage.ts derives it: what CI keys
 * its concurrency groups, seed and smoke runs on, and what the preview reaper compares stacks with.
 *   npm run --silent stage -- <branch>…    one stage per line; a branch that would be prod prints nothing
 */
import { PREVIEW_BASE, PROD, sanitiseStage } from '#infra/stage-name.ts';

const branches = process.argv.slice(2);
if (branches.length === 0) {
  process.stderr.write('Usage: npm run --silent stage -- <branch>…\n');
  process.exit(2);
}
for (const branch of branches) {
  const stage = sanitiseStage(branch);
  // A branch never deploys prod or the preview base (infra/stage.ts): it has no stage CI may act on.
  if (stage !== PROD && stage !== PREVIEW_BASE) process.stdout.write(`${stage}\n`);
}
