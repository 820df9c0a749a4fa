import { scopes as allScopes, type Scope } from '#contract/routes.ts';
import { createApiKey, listApiKeys, revokeApiKey } from '#db/queries/api-keys.ts';
import { workspaceExists } from '#db/queries/workspaces.ts';
import { CliError, parse, run, say, UsageError, withDatabase } from './common.ts';

const usage = `
Usage:
  npm run token -- create --workspace <id> [--name <name>] [--scopes <a,b>] [--expires-in <30d|12h|90m>]
  npm run token -- list --workspace <id>
  npm run token -- revoke <keyId>

Scopes: ${allScopes.join(', ')} (default: all of them). Keys never expire unless --expires-in is given.
The last line \`create\` prints on stdout is the token, so a script can capture it:
  tok=$(npm run --silent token -- create --workspace <id> | tail -1)`;

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const MAX_LIFETIME_MS = 10 * 365 * UNIT_MS.d;

/** `30d`, `12h`, `90m` → the moment the key stops working. */
export function expiryFrom(text: string, now = Date.now()): Date {
  const match = /^([1-9]\d*)([dhm])$/.exec(text);
  const ms = match ? Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS] : Number.NaN;
  if (!(ms <= MAX_LIFETIME_MS)) {
    throw new UsageError(`--expires-in must be a positive number of days, hours or minutes up to 10 years \
(e.g. 30d, 12h, 90m), not "${text}"`);
  }
  return new Date(now + ms);
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

const iso = (pgText: string | null) => (pgText ? new Date(pgText).toISOString() : '-');

function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, c) => Math.max(...rows.map((r) => r[c]?.length ?? 0))) ?? [];
  return rows
    .map((r) =>
      r
        .map((cell, c) => cell.padEnd(widths[c] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

const options = {
  workspace: { type: 'string', short: 'w' },
  name: { type: 'string' },
  scopes: { type: 'string' },
  'expires-in': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;
type Values = {
  [K in keyof typeof options]?: (typeof options)[K]['type'] extends 'string' ? string : boolean;
};

/** Options that make sense for each command; anything else is an error, not silently ignored. */
const allowed: Record<string, readonly string[]> = {
  create: ['workspace', 'name', 'scopes', 'expires-in'],
  list: ['workspace'],
  revoke: [],
};

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
    return withDatabase(async ({ db }) => {
      if (!(await revokeApiKey(db, keyId)))
        throw new CliError(`no active key "${keyId}" (unknown or already revoked)`);
      say(`Revoked key ${keyId}. Gateways may accept it for up to 60 s more (authorizer cache).`);
    });
  }
  if (rest.length) throw new UsageError(`unexpected argument "${rest[0]}"`);
  const workspaceId = values.workspace;
  if (!workspaceId) throw new UsageError(`${command} needs --workspace <id>`);
  const scopes = values.scopes === undefined ? [...allScopes] : scopesFrom(values.scopes);
  const expiresAt = values['expires-in'] === undefined ? null : expiryFrom(values['expires-in']);
  const name = values.name?.trim() ?? 'CLI key';
  if (!name || name.length > 255) throw new UsageError('--name must be 1 to 255 characters');

  await withDatabase(async ({ db }) => {
    if (!(await workspaceExists(db, workspaceId))) throw new CliError(`no workspace "${workspaceId}"`);
    if (command === 'list') {
      const keys = await listApiKeys(db, workspaceId);
      if (!keys.length) return say(`Workspace ${workspaceId} has no keys.`);
      const now = Date.now();
      const status = (k: (typeof keys)[number]) =>
        k.revokedAt ? 'revoked' : k.expiresAt && Date.parse(iso(k.expiresAt)) <= now ? 'expired' : 'active';
      const header = ['ID', 'NAME', 'SCOPES', 'STATUS', 'CREATED', 'EXPIRES', 'LAST USED'];
      const rows = keys.map((k) => [
        k.id,
        k.name,
        k.scopes.join(','),
        status(k),
        iso(k.createdAt),
        iso(k.expiresAt),
        iso(k.lastUsedAt),
      ]);
      return say(table([header, ...rows]));
    }
    const key = await createApiKey(db, { workspaceId, name, scopes, expiresAt });
    say(
      `Created API key ${key.id} "${name}" for workspace ${workspaceId}`,
      `Scopes: ${scopes.join(', ')}; expires: ${expiresAt ? expiresAt.toISOString() : 'never'}`,
      'Bearer token (shown once, keep it secret):',
      key.token,
    );
  });
});
