import { mkdirSync } from 'node:fs';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { type DatabaseConfig, type DatabaseHandle, databaseConfigFromEnv, openDatabase } from '#db/client.ts';
import { EmbeddedDatabaseBusy, lockEmbeddedDatabase } from './embedded-lock.ts';

/** Bad arguments: reported with the usage text, exit status 2. */
export class UsageError extends Error {}
/** A failure the user can act on (unknown workspace, revoked key…): message only, exit status 1. */
export class CliError extends Error {}

/** `node:util` parseArgs, with its complaints turned into usage errors. */
export function parse<T extends ParseArgsConfig>(config: T) {
  try {
    return parseArgs({ strict: true, ...config });
  } catch (error) {
    if ((error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      // Keep Node's first sentence; its advice about `--` does not apply to npm scripts.
      throw new UsageError((error as Error).message.replace(/\. To specify a positional.*$/s, ''));
    }
    throw error;
  }
}

/** Where the data lives, for humans: never the password. */
export function describeDatabase(config: DatabaseConfig): string {
  if (config.kind === 'pglite') return `embedded database in ${config.dataDir || 'memory'}`;
  const url = new URL(config.url);
  return `database postgres://${url.host}${url.pathname}`;
}

/**
 * Opens the database the environment names (DATABASE_URL, else embedded under `.data/`); an
 * embedded one is locked against other processes until closed.
 */
export async function openDatabaseFromEnv(): Promise<DatabaseHandle> {
  const config = databaseConfigFromEnv();
  if (config.kind === 'postgres' || !config.dataDir) return openDatabase(config);
  // PGlite creates its own directory but not the parents (`.data/` on a fresh clone).
  mkdirSync(config.dataDir, { recursive: true });
  let release: () => void;
  try {
    release = lockEmbeddedDatabase(config.dataDir);
  } catch (error) {
    if (!(error instanceof EmbeddedDatabaseBusy)) throw error;
    throw new CliError(`${error.message}: stop it first, or point every tool at a server with DATABASE_URL`);
  }
  try {
    const handle = await openDatabase(config);
    return { ...handle, close: () => handle.close().finally(release) };
  } catch (error) {
    release();
    throw error;
  }
}

/** The database named by the environment (DATABASE_URL, else embedded); always closed after `work`. */
export async function withDatabase<T>(work: (handle: DatabaseHandle) => Promise<T>): Promise<T> {
  const handle = await openDatabaseFromEnv();
  try {
    return await work(handle);
  } catch (error) {
    throw explainDatabaseError(error, handle.config);
  } finally {
    await handle.close();
  }
}

function codeOf(error: unknown): string | undefined {
  for (let e = error; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

/** Database failures a user can fix, as a sentence; anything else passes through untouched. */
export function explainDatabaseError(error: unknown, config: DatabaseConfig): unknown {
  const where = describeDatabase(config);
  switch (codeOf(error)) {
    case '42P01': // undefined_table
      return new CliError(`${where} has no tables yet: run \`npm run db:migrate\` first`);
    case 'ECONNREFUSED':
    case 'ENOTFOUND':
    case 'CONNECT_TIMEOUT':
      return new CliError(`cannot reach ${where}: is the server running?`);
    case '3D000': // invalid_catalog_name
      return new CliError(`${where} does not exist: create it first (createdb)`);
    case '28P01':
    case '28000':
      return new CliError(`${where} refused the credentials in DATABASE_URL`);
    default:
      return error;
  }
}

/**
 * Runs a command's main: user errors become one line on stderr (plus the usage for bad
 * arguments) and a non-zero exit status, never a stack trace; DEBUG=1 shows unexpected ones in full.
 */
export async function run(command: string, usage: string, main: () => Promise<void>): Promise<void> {
  try {
    await main();
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`${command}: ${error.message}\n\n${usage.trim()}\n`);
      process.exitCode = 2;
      return;
    }
    process.exitCode = 1;
    if (error instanceof CliError) {
      process.stderr.write(`${command}: ${error.message}\n`);
      return;
    }
    const detail = process.env.DEBUG ? (error as Error).stack : (error as Error)?.message?.split('\n')[0];
    process.stderr.write(`${command}: unexpected error: ${detail}\n`);
    if (!process.env.DEBUG) process.stderr.write('(set DEBUG=1 for details)\n');
  }
}

/** Prints lines on stdout; a token, when there is one, always goes last so `tail -1` gets it. */
export function say(...lines: string[]): void {
  process.stdout.write(`${lines.join('\n')}\n`);
}
