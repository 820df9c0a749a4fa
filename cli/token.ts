import { type AdminKey, lifetimeMs } from '#contract/admin.ts';
import { scopes as allScopes, type Scope } from '#contract/routes.ts';
import { withAdmin } from './admin.ts';
import { parse, run, say, table, UsageError } from './common.ts';

const usage = `
Usage:
  npm run token -- create --workspace <id> [--name <name>] [--scopes <a,b>] [--expires-in <30d|12h|90m>]
  npm run token -- list --workspace <id>
  npm run token -- revoke <keyId>
Each also takes --stage <stage>: run it on that deployed stage, through its admin function.

Scopes: ${allScopes.join(', ')} (default: all of them). Keys never expire unless --expires-in is given.
The last line \`create\` prints on stdout is the token, so a script can capture it:
  tok=$(npm run --silent token -- create --workspace <id> | tail -1)`;

/** `30d`, `12h`, `90m`, checked here so that the message names the option. */
export function lifetimeFrom(text: string): string {
  if (lifetimeMs(text) === undefined) {
    throw new UsageError(`--expires-in must be a positive number of days, hours or minutes up to 10 years \
(e.g. 30d, 12h, 90m), not "${text}"`);
  }
  return text;
}

export function scopesFrom(text: string): Scope[] {
  const wanted = [...new Set(text.split(',').map((s) => s.trim()))].filter(Boolean);
  const unknown = wanted.filter((s) => !(allScopes as readonly string[]).includes(s));
  if (unknown.length) {
    throw new UsageError(
      `unknown scope ${unknown.map((s) => `"${s}"`).join(', ')}; valid: ${allScopes.join(', ')}`,
    );
  }
  if (!wanted.length) throw new UsageError('--scopes needs at least one scope');
  return wanted as Scope[];
}

const options = {
  workspace: { type: 'string', short: 'w' },
  name: { type: 'string' },
  scopes: { type: 'string' },
  'expires-in': { type: 'string' },
  stage: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;
type Values = {
  [K in keyof typeof options]?: (typeof options)[K]['type'] extends 'string' ? string : boolean;
};

/** Options that make sense for each command; anything else is an error, not silently ignored. */
const allowed: Record<string, readonly string[]> = {
  create: ['workspace', 'name', 'scopes', 'expires-in', 'stage'],
  list: ['workspace', 'stage'],
  revoke: ['stage'],
};

const keyTable = (keys: AdminKey[]) =>
  table([
    ['ID', 'NAME', 'SCOPES', 'STATUS', 'CREATED', 'EXPIRES', 'LAST USED'],
    ...keys.map((k) => [
      k.id,
      k.name,
      k.scopes.join(','),
      k.status,
      k.createdAt,
      k.expiresAt ?? '-',
      k.lastUsedAt ?? '-',
    ]),
  ]);

await run('token', usage, async () => {
  const { values, positionals } = parse({ allowPositionals: true, options }) as {
    values: Values;
    positionals: string[];
  };
  if (values.help) return say(usage.trim());
  const [command, ...rest] = positionals;
  if (!command) throw new UsageError('missing command: create, list or revoke');
  if (!Object.hasOwn(allowed, command)) throw new UsageError(`unknown command "${command}"`);
  const extra = Object.keys(values).filter((k) => !allowed[command]?.includes(k));
  if (extra.length) throw new UsageError(`${command} does not take --${extra.join(', --')}`);

  if (command === 'revoke') {
    const [keyId, ...more] = rest;
    if (!keyId || more.length) throw new UsageError('revoke takes exactly one key id');
    return withAdmin(values.stage, async (admin) => {
      await admin.run({ command: 'token.revoke', keyId });
      say(`Revoked key ${keyId}. It is refused from its next request on.`);
    });
  }
  if (rest.length) throw new UsageError(`unexpected argument "${rest[0]}"`);
  const workspaceId = values.workspace;
  if (!workspaceId) throw new UsageError(`${command} needs --workspace <id>`);
  if (command === 'list') {
    return withAdmin(values.stage, async (admin) => {
      const { keys } = await admin.run({ command: 'token.list', workspaceId });
      say(keys.length ? keyTable(keys) : `Workspace ${workspaceId} has no keys.`);
    });
  }
  const scopes = values.scopes === undefined ? undefined : scopesFrom(values.scopes);
  const expiresIn = values['expires-in'] === undefined ? undefined : lifetimeFrom(values['expires-in']);
  const name = values.name?.trim();
  if (name !== undefined && (!name || name.length > 255))
    throw new UsageError('--name must be 1 to 255 characters');

  await withAdmin(values.stage, async (admin) => {
    const { key, token } = await admin.run({ command: 'token.create', workspaceId, name, scopes, expiresIn });
    say(
      `Created API key ${key.id} "${key.name}" for workspace ${workspaceId}`,
      `Scopes: ${key.scopes.join(', ')}; expires: ${key.expiresAt ?? 'never'}`,
      'Bearer token (shown once, keep it secret):',
      token,
    );
  });
});
