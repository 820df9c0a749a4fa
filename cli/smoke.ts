import type { Scope } from '#contract/routes.ts';
import type { AdminTarget } from './admin.ts';
import { stageAdmin } from './admin.ts';
import { CliError, parse, run, say, UsageError } from './common.ts';
import { runChecks, type SmokeTarget, smokeChecks, type Tally } from './smoke-checks.ts';

const usage = `
Usage:
  npm run smoke -- --url <ApiUrl> --token <token> [--write] [--limits]
  npm run smoke -- --stage <stage> [--workspace <id>] [--write] [--limits]

Checks a running API over HTTP: the read routes answer the spec's shapes, no token is a 401,
an unknown token a 403, a key without the route's scope a 403 problem, pagination links work, a bad
request is a 400 problem, GET /events pages by cursor, the ledger's balance, entries (JSON and CSV)
and usage agree; with --write also that POST /agents creates
and an Idempotency-Key replay returns the same agent, the changes to an agent, a session's life, a
credit booked once per Idempotency-Key (1 credit), and
one event in the feed for each of those changes (it creates two agents and a session: for previews
and local servers, not prod); with
--limits also that a burst past the standard tier (docs/api.md) is a 429 problem with Retry-After
(the workspace must be on the standard tier; the local server needs LOCAL_LIMITS=on).
With --stage it reads ApiUrl from the stack and mints short-lived keys through the admin function,
in --workspace or in a workspace of its own ("Smoke tests", created once), revoking them at the end.
One line per check; the last line is "<n> passed, <n> failed, <n> skipped"; the exit status is 1 on any failure.`;

export const SMOKE_WORKSPACE = 'Smoke tests';
const KEY_LIFETIME = '30m';

/** The workspace the smoke keys belong to: the one given, else the stage's own smoke workspace. */
async function smokeWorkspace(admin: AdminTarget, given: string | undefined): Promise<string> {
  if (given) return given;
  const { workspaces } = await admin.run({ command: 'workspace.list' });
  const existing = workspaces.find((w) => w.name === SMOKE_WORKSPACE);
  if (existing) return existing.id;
  return (await admin.run({ command: 'workspace.create', name: SMOKE_WORKSPACE })).workspace.id;
}

const withSlash = (url: URL) => (url.pathname.endsWith('/') ? url : new URL(`${url.href}/`));

function baseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`--url must be an absolute http(s) URL, not "${text}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`--url must be an http(s) URL, not "${text}"`);
  }
  return withSlash(url);
}

await run('smoke', usage, async () => {
  const { values } = parse({
    options: {
      url: { type: 'string' },
      token: { type: 'string' },
      stage: { type: 'string' },
      workspace: { type: 'string' },
      write: { type: 'boolean' },
      limits: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return say(usage.trim());
  const write = values.write ?? false;
  const limits = values.limits ?? false;
  let tally: Tally;

  if (values.stage === undefined) {
    if (!values.url || !values.token) throw new UsageError('give --url and --token, or --stage');
    if (values.workspace !== undefined) throw new UsageError('--workspace goes with --stage');
    const target: SmokeTarget = {
      base: baseUrl(values.url),
      token: values.token,
      write,
      limits,
      scopeless: { skip: 'minting a key without the scope needs the admin function (--stage)' },
    };
    say(`Smoke test of ${target.base.href}${write ? ' (with writes)' : ''}`);
    tally = await runChecks(smokeChecks(target), say);
  } else {
    if (values.url || values.token)
      throw new UsageError('--stage reads the URL and mints its own keys: drop --url/--token');
    const { outputs, admin } = await stageAdmin(values.stage);
    if (!outputs.apiUrl) throw new CliError(`stack ${outputs.stackName} has no ApiUrl output`);
    const workspaceId = await smokeWorkspace(admin, values.workspace);
    const mint = (name: string, scopes: Scope[]) =>
      admin.run({ command: 'token.create', workspaceId, name, scopes, expiresIn: KEY_LIFETIME });
    const stamp = new Date().toISOString();
    const keys = [
      await mint(`smoke ${stamp}`, [
        'agents:read',
        'sessions:read',
        'events:read',
        'usage:read',
        ...(write
          ? ([
              'agents:write',
              'agents:publish',
              'sessions:write',
              'billing:write',
              'webhooks:manage',
            ] as const)
          : []),
      ]),
      await mint(`smoke ${stamp} (no agents:read)`, ['sessions:read']),
    ];
    say(
      `Smoke test of stage ${outputs.stage}, ${outputs.apiUrl}${write ? ' (with writes)' : ''}`,
      `Workspace ${workspaceId}; keys ${keys.map((k) => k.key.id).join(', ')} (expire in ${KEY_LIFETIME}, revoked at the end)`,
    );
    const [reader, scopeless] = keys as [(typeof keys)[0], (typeof keys)[0]];
    try {
      tally = await runChecks(
        smokeChecks({
          base: baseUrl(outputs.apiUrl),
          token: reader.token,
          write,
          limits,
          scopeless: { token: scopeless.token },
        }),
        say,
      );
    } finally {
      for (const { key } of keys) {
        await admin.run({ command: 'token.revoke', keyId: key.id }).catch((error: Error) => {
          process.stderr.write(`smoke: could not revoke key ${key.id}: ${error.message}\n`);
          process.exitCode = 1;
        });
      }
    }
  }
  say(`${tally.passed} passed, ${tally.failed} failed, ${tally.skipped} skipped`);
  if (tally.failed > 0) process.exitCode = 1;
});
