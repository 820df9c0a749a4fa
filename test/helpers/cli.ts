import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serverDatabase } from './database.ts';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export const lastLine = (text: string) => text.trimEnd().split('\n').at(-1) ?? '';
export const TOKEN = /^vak_[A-Za-z0-9_-]{43}$/;
export const STACK_FRAME = /^\s+at /m;

/**
 * A TypeScript script as `npm run` runs it (`tsx <script>`), in a child process: tsx's loader in it,
 * without the tsx command's wrapper process, which only relays signals.
 */
export const runScript = (script: string, args: string[], env: NodeJS.ProcessEnv) =>
  new Promise<CliResult>((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', script, ...args], { env }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });

/** A command-line tool as a user runs it (`npm run <script>` is `tsx cli/<file>.ts`). */
export const runCli = (file: string, args: string[], env: NodeJS.ProcessEnv) =>
  runScript(`cli/${file}.ts`, args, env);

/**
 * An empty database of the CLIs' own, as a user's would be: a new Postgres database when
 * DATABASE_URL names a server, else an embedded one in a temporary directory. `env` names it to
 * the children; `remove` drops it.
 */
export async function emptyCliDatabase(): Promise<{ env: NodeJS.ProcessEnv; remove: () => Promise<void> }> {
  const env: NodeJS.ProcessEnv = { ...process.env, DEBUG: '' };
  const url = process.env.DATABASE_URL;
  if (!url) {
    const dir = mkdtempSync(join(tmpdir(), 'vaa-cli-'));
    env.PGLITE_DATA_DIR = join(dir, 'data', 'pglite');
    return { env, remove: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const created = await serverDatabase(url, 'cli');
  env.DATABASE_URL = created.url;
  return { env, remove: created.drop };
}

/**
 * The environment for a child that talks to local AWS stand-ins: dummy credentials and region,
 * no profile or config files of the machine, no instance metadata lookups (nothing leaves 127.0.0.1).
 */
export function awsEnv(standIn: Record<string, string>, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DEBUG: '' };
  for (const key of Object.keys(env)) if (key.startsWith('AWS_')) delete env[key];
  return {
    ...env,
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_CONFIG_FILE: '/nonexistent/aws-config',
    AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/aws-credentials',
    ...standIn,
    ...extra,
  };
}

/** A port nothing listens on (bound, then released): to refuse connections, or for a server that needs a number. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}
