import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import postgres from 'postgres';
import { inject } from 'vitest';
import { closingAlso, type DatabaseHandle, embeddedClient, openDatabase } from '#db/client.ts';

/**
 * A database name of this run: prefixed with the run's template, so that the run's teardown
 * (global-setup.ts) drops whatever a file left behind (a crash, a timeout before `close()`).
 */
const runDatabaseName = (kind: string) =>
  `${inject('templateDatabase')}_${kind}_${randomBytes(6).toString('hex')}`;

/**
 * A test database's commits do not wait for the WAL to reach the disk (`synchronous_commit = off`):
 * what other sessions see, locks and constraints are the same; only a server crash, which no test
 * makes, could lose the last commits, and a write no longer waits on the disk. The bench's database
 * keeps the server's default.
 */
const withoutFlushWait = (name: string) => `alter database "${name}" set synchronous_commit = off`;

/**
 * A new database of this run on the server at `url`: a clone of `template`, or empty. Its URL, and
 * `drop` to remove it.
 */
export async function serverDatabase(
  url: string,
  kind: string,
  template?: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = runDatabaseName(kind);
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"${template ? ` template "${template}"` : ''}`);
  await admin.unsafe(withoutFlushWait(name));
  const target = new URL(url);
  target.pathname = `/${name}`;
  return {
    url: target.toString(),
    drop: async () => {
      await admin.unsafe(`drop database if exists "${name}" with (force)`);
      await admin.end();
    },
  };
}

/** vitest.config.ts chose the database: DATABASE_URL is the server's, or empty on PGlite. */
export const usingPostgres = () => Boolean(process.env.DATABASE_URL);

/**
 * A fresh, migrated, empty database of its own for the caller: a clone of the run's template on
 * the Postgres server named by DATABASE_URL, else an in-memory PGlite loaded from the migrated dump.
 * `close()` drops it.
 */
export async function freshDatabase(
  options: { poolMax?: number } = {},
): Promise<DatabaseHandle & { url?: string }> {
  const url = process.env.DATABASE_URL;
  if (url) {
    const created = await serverDatabase(url, 'test', inject('templateDatabase'));
    const handle = await openDatabase({ kind: 'postgres', url: created.url, poolMax: options.poolMax ?? 4 });
    return Object.assign(closingAlso(handle, created.drop), { url: created.url });
  }
  const dump = new Blob([readFileSync(inject('pgliteDump'))]);
  const client = await PGlite.create({ loadDataDir: dump });
  return embeddedClient(client, { kind: 'pglite' }, () => client.close());
}

/** An empty database of its own, nothing migrated: a new one on the Postgres server, else an in-memory PGlite. */
export async function emptyDatabase(): Promise<DatabaseHandle & { url?: string }> {
  const url = process.env.DATABASE_URL;
  if (!url) return openDatabase({ kind: 'pglite' });
  const created = await serverDatabase(url, 'empty');
  const handle = await openDatabase({ kind: 'postgres', url: created.url, poolMax: 2 });
  return Object.assign(closingAlso(handle, created.drop), { url: created.url });
}
