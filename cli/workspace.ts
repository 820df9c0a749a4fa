import { isTierName, tierNames } from '#contract/tiers.ts';
import { withAdmin } from './admin.ts';
import { parse, run, say, table, UsageError } from './common.ts';

const usage = `
Usage:
  npm run workspace -- create --name <name>
  npm run workspace -- list
  npm run workspace -- tier --workspace <id> --tier <${tierNames.join('|')}>
Each also takes --stage <stage>: run it on that deployed stage, through its admin function.

The last line \`create\` prints on stdout is the new workspace's id, so a script can capture it:
  ws=$(npm run --silent workspace -- create --name Acme | tail -1)
Then mint its first key: npm run token -- create --workspace "$ws"
A new workspace is on the standard tier; \`tier\` moves it (limits: docs/api.md).`;

await run('workspace', usage, async () => {
  const { values, positionals } = parse({
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      workspace: { type: 'string' },
      tier: { type: 'string' },
      stage: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return say(usage.trim());
  const [command, ...rest] = positionals;
  if (!command) throw new UsageError('missing command: create, list or tier');
  if (command !== 'create' && command !== 'list' && command !== 'tier') {
    throw new UsageError(`unknown command "${command}"`);
  }
  if (rest.length) throw new UsageError(`unexpected argument "${rest[0]}"`);
  if (command !== 'tier' && (values.workspace !== undefined || values.tier !== undefined)) {
    throw new UsageError(`${command} does not take --workspace or --tier`);
  }

  if (command === 'tier') {
    if (values.name !== undefined) throw new UsageError('tier does not take --name');
    const { workspace: workspaceId, tier } = values;
    if (!workspaceId) throw new UsageError('tier needs --workspace <id>');
    if (!isTierName(tier)) throw new UsageError(`tier needs --tier, one of ${tierNames.join(', ')}`);
    return withAdmin(values.stage, async (admin) => {
      const { workspace, previousTier } = await admin.run({ command: 'workspace.tier', workspaceId, tier });
      say(`Workspace "${workspace.name}" in the ${admin.where}: tier ${previousTier} → ${workspace.tier}.`);
    });
  }

  if (command === 'list') {
    if (values.name !== undefined) throw new UsageError('list does not take --name');
    return withAdmin(values.stage, async (admin) => {
      const { workspaces } = await admin.run({ command: 'workspace.list' });
      if (!workspaces.length) return say(`No workspaces in the ${admin.where}.`);
      say(
        table([
          ['ID', 'NAME', 'TIER', 'CREATED'],
          ...workspaces.map((w) => [w.id, w.name, w.tier, w.createdAt]),
        ]),
      );
    });
  }
  const name = values.name?.trim();
  if (name === undefined) throw new UsageError('create needs --name <name>');
  if (!name || name.length > 255) throw new UsageError('--name must be 1 to 255 characters');
  await withAdmin(values.stage, async (admin) => {
    const { workspace } = await admin.run({ command: 'workspace.create', name });
    say(`Created workspace "${workspace.name}" in the ${admin.where}. Its id:`, workspace.id);
  });
});
