/**
 * Opening the database the environment names, for the tools that run beside the API (the CLIs and
 * the local server): the embedded one locked against a second process, failures a user can fix
 * turned into one sentence.
 */
import { mkdirSync } from 'node:fs';
import {
  closingAlso,
  type DatabaseConfig,
  type DatabaseHandle,
  databaseConfigFromEnv,
  openDatabase,
} from './client.ts';
import { EmbeddedDatabaseBusy, lockEmbeddedDatabase } from './embedded-lock.ts';
import { causes } from './errors.ts';

/** A database failure the user can act on (not reachable, not migrated…): its message says what to do. */
export class DatabaseUnusable extends Error {}

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
    throw new DatabaseUnusable(
      `${error.message}: stop it first, or point every tool at a server with DATABASE_URL`,
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
      return new DatabaseUnusable(`${where} does not exist: create it first (createdb)`);
    case '28P01':
    case '28000':
      return new DatabaseUnusable(`${where} refused the credentials in DATABASE_URL`);
    default:
      return error;
  }
}
