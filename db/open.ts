/**
 * Opening the database the environment names, for the tools that run beside the API (the CLIs and
 * the local server): the embedded one locked against a second process, failures a user can fix
 * turned into one sentence.
 */
import { mkdirSync } from 'node:fs';
import postgres from 'postgres';
import {
  closingAlso,
  type DatabaseConfig,
  type DatabaseHandle,
  databaseConfigFromEnv,
  openDatabase,
} from './client.ts';
import { describeDatabase } from './config.ts';
import { EmbeddedDatabaseBusy, lockEmbeddedDatabase } from './embedded-lock.ts';
import { causes, DatabaseUnusable, EmbeddedDatabaseHeld } from './errors.ts';

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
    throw new EmbeddedDatabaseHeld(
      `${error.message}: stop it first, or point every tool at a server with DATABASE_URL`,
      error.server,
    );
  }
  try {
    const handle = await openDatabase(config);
    return closingAlso(handle, release);
  } catch (error) {
    release();
    throw error;
  }
}

/** The exact commands that create the database a URL names, run as a user who may (CREATEDB). */
function createCommands(url: string): string {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const quoted = `"${name.replaceAll('"', '""')}"`;
  return `createdb -h ${target.hostname} -p ${target.port || 5432} '${name.replaceAll("'", "'\\''")}' (or in psql: create database ${quoted};)`;
}

/**
 * `db:migrate`'s first step on a server: the database DATABASE_URL names, created when it does not
 * exist yet and the user may (CREATEDB or superuser), through the server's maintenance database.
 * When it may not, the exact command for someone who may. Returns whether it created it.
 */
export async function createDatabaseIfMissing(config: DatabaseConfig): Promise<boolean> {
  if (config.kind !== 'postgres') return false;
  const probe = postgres(config.url, { max: 1, connect_timeout: 10, onnotice: () => {} });
  try {
    await probe`select 1`;
    return false;
  } catch (error) {
    if (codeOf(error) !== '3D000') return false; // anything else: the migration reports it
  } finally {
    await probe.end({ timeout: 1 }).catch(() => {});
  }
  const target = new URL(config.url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const maintenance = new URL(config.url);
  maintenance.pathname = '/postgres';
  const admin = postgres(maintenance.toString(), { max: 1, connect_timeout: 10, onnotice: () => {} });
  try {
    await admin.unsafe(`create database "${name.replaceAll('"', '""')}"`);
    return true;
  } catch (error) {
    const code = codeOf(error);
    if (code === '42P04') return false; // duplicate_database: made meanwhile by someone else
    const why =
      code === '42501' ? 'may not create databases' : `could not create it (${(error as Error).message})`;
    throw new DatabaseUnusable(
      `${describeDatabase(config)} does not exist and ${decodeURIComponent(target.username) || 'this user'} ${why}: ask someone who may to run ${createCommands(config.url)}`,
    );
  } finally {
    await admin.end({ timeout: 1 }).catch(() => {});
  }
}

function codeOf(error: unknown): string | undefined {
  for (const e of causes(error)) if (typeof e.code === 'string') return e.code;
  return undefined;
}

/** Database failures a user can fix, as a sentence; anything else passes through untouched. */
export function explainDatabaseError(error: unknown, config: DatabaseConfig): unknown {
  const where = describeDatabase(config);
  switch (codeOf(error)) {
    case '42P01': // undefined_table
      return new DatabaseUnusable(`${where} has no tables yet: run \`npm run db:migrate\` first`);
    case 'ECONNREFUSED':
    case 'ENOTFOUND':
    case 'CONNECT_TIMEOUT':
      return new DatabaseUnusable(`cannot reach ${where}: is the server running?`);
    case '3D000': // invalid_catalog_name
      if (config.kind !== 'postgres') return error;
      return new DatabaseUnusable(
        `${where} does not exist: \`npm run db:migrate\` creates it, or create it yourself: ${createCommands(config.url)}`,
      );
    case '28P01':
    case '28000':
      return new DatabaseUnusable(`${where} refused the credentials in DATABASE_URL`);
    default:
      return error;
  }
}
