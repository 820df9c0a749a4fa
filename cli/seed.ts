import { MAX_DEMO_SESSIONS } from '#contract/admin.ts';
import { withAdmin } from './admin.ts';
import { parse, run, say, UsageError } from './common.ts';

const usage = `
Usage: npm run db:seed [-- --name <workspace name>] [--sessions <count>] [--stage <stage>]

Creates a NEW demo workspace with sample agents, sessions, persons, conversations and ledger
entries, and an API key with every scope. The last line on stdout is that key's bearer token:
  tok=$(npm run --silent db:seed | tail -1)
The database must be migrated first (npm run db:migrate). With --stage it runs on that deployed
preview, through its admin function; prod refuses it.`;

await run('db:seed', usage, async () => {
  const { values } = parse({
    options: {
      name: { type: 'string' },
      sessions: { type: 'string' },
      stage: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return say(usage.trim());
  const sessions = values.sessions === undefined ? undefined : Number(values.sessions);
  if (
    sessions !== undefined &&
    !(Number.isInteger(sessions) && sessions >= 1 && sessions <= MAX_DEMO_SESSIONS)
  ) {
    throw new UsageError(
      `--sessions must be a whole number from 1 to ${MAX_DEMO_SESSIONS}, not "${values.sessions}"`,
    );
  }
  const name = values.name?.trim();
  if (name !== undefined && (name.length === 0 || name.length > 255)) {
    throw new UsageError('--name must be 1 to 255 characters');
  }
  await withAdmin(values.stage, async (admin) => {
    const seeded = await admin.run({ command: 'seed.demo', name, sessions });
    const counts = Object.entries(seeded.counts).map(
      ([table, n]) => `${n} ${table.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`)}`,
    );
    say(
      `Seeded a demo workspace in the ${admin.where}.`,
      `Workspace id: ${seeded.workspaceId}`,
      `Created: ${counts.join(', ')}`,
      `API key id: ${seeded.keyId} (scopes ${seeded.scopes.join(', ')}); its bearer token, shown once:`,
      seeded.token,
    );
  });
});
