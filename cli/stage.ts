/**
 * Branch → stage, and the previews that exist.
 *   npm run --silent stage -- name <branch>…    the stage each branch deploys to (infra/stage.ts), one
 *                                               per line; a branch that would be prod or the preview
 *                                               base prints nothing. What CI keys its concurrency
 *                                               groups, seed and smoke runs on, and the reaper compares.
 *   npm run stage -- list                       every preview stack: age, days since its last deploy,
 *                                               its database, its status (AWS credentials needed)
 *   npm run --silent stage -- list --idle-days <n>   only the stages not deployed for n days or more
 *   npm run stage -- teardown <stage>           before destroying a preview: deletes the API keys its
 *                                               admin function made, placed in a plan or not
 *                                               (CloudFormation would leave them)
 * `npm run --silent stage -- <branch>…` (no `name`) still works for any branch not called `list`.
 */
import { PREVIEW_BASE, PROD, sanitiseStage } from '#infra/stage-name.ts';
import { parse, run, say, table, UsageError } from './common.ts';

const usage = `
Usage:
  npm run --silent stage -- name <branch>…
  npm run stage -- list [--idle-days <n>]
  npm run stage -- teardown <stage>`;

await run('stage', usage, async () => {
  const [command, ...rest] = process.argv.slice(2);
  if (command === 'list') {
    const { values } = parse({ args: rest, options: { 'idle-days': { type: 'string' } } });
    // The AWS SDK only for `list`: naming a branch stays instant.
    const { daysBetween, listPreviews } = await import('./aws-stage.ts');
    const previews = await listPreviews();
    const now = new Date();
    const idleDays = values['idle-days'];
    if (idleDays !== undefined) {
      const days = Number(idleDays);
      if (!Number.isInteger(days) || days < 1)
        throw new UsageError('--idle-days takes a whole number of days ≥ 1');
      for (const p of previews) if (daysBetween(p.lastDeployAt, now) >= days) say(p.stage);
      return;
    }
    if (previews.length === 0) return say('No previews.');
    say(
      table([
        ['STAGE', 'AGE', 'IDLE', 'DATABASE', 'STATUS'],
        ...previews.map((p) => [
          p.stage,
          `${daysBetween(p.createdAt, now)}d`,
          `${daysBetween(p.lastDeployAt, now)}d`,
          p.database ?? '-',
          p.status,
        ]),
      ]),
    );
    return;
  }
  if (command === 'teardown') {
    const [stage, ...extra] = rest;
    if (!stage || extra.length) throw new UsageError('give one stage: npm run stage -- teardown <stage>');
    const { deletePreviewKeys } = await import('./aws-stage.ts');
    const { deleted, stackName } = await deletePreviewKeys(stage);
    return say(`${stackName}: ${deleted} API key${deleted === 1 ? '' : 's'} deleted`);
  }
  const branches = command === 'name' ? rest : process.argv.slice(2);
  if (branches.length === 0) throw new UsageError('give one or more branch names');
  for (const branch of branches) {
    const stage = sanitiseStage(branch);
    // A branch never deploys prod or the preview base (infra/stage.ts): it has no stage CI may act on.
    if (stage !== PROD && stage !== PREVIEW_BASE) say(stage);
  }
});
