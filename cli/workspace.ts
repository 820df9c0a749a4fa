import { withAdmin } from './admin.ts';
import { parse, run, say, table, UsageError } from './common.ts';

const usage = `
Usage:
  npm run workspace -- create --name <name>
  npm run workspace -- list
Each also takes --stage <stage>: run it on that deployed stage, through its admin function.

The last line \`create\` prints on stdout is the new workspace's id, so a script can capture it:
  ws=$(npm run --silent workspace -- create --name Acme | tail -1)
Then mint its first key: npm run token -- create --workspace "$ws"`;

await run('workspace', usage, async () => {
  const { values, positionals } = parse({
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      stage: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return say(usage.trim());
  const [command, ...rest] = positionals;
  if (!command) throw new UsageError('missing command: create or list');
  if (command !== 'create' && command !== 'list') throw new UsageError(`unknown command "${command}"`);
  if (rest.length) throw new UsageError(`unexpected argument "${rest[0]}"`);

  if (command === 'list') {
    if (values.name !== undefined) throw new UsageError('list does not take --name');
    return withAdmin(values.stage, async (admin) => {
      const { workspaces } = await admin.run({ command: 'workspace.list' });
      if (!workspaces.length) return say(`No workspaces in the ${admin.where}.`);
      say(table([['ID', 'NAME', 'CREATED'], ...workspaces.map((w) => [w.id, w.name, w.createdAt])]));
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
