import type { PGlite, Transaction } from '@electric-sql/pglite';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import type {
  Database,
  DatabaseClient,
  DatabaseConfig,
  DatabaseHandle,
  SqlRunner,
  Statement,
} from './database.ts';
import { openPostgres } from './postgres-client.ts';
import * as schema from './schema/index.ts';

export { DEFAULT_PGLITE_DIR, databaseConfigFromEnv } from './config.ts';
export type {
  Database,
  DatabaseClient,
  DatabaseConfig,
  DatabaseHandle,
  RunOptions,
  Schema,
  SqlRunner,
  Statement,
} from './database.ts';

/**
 * Opens a database without touching the network (postgres.js connects on first query, PGlite
 * starts in the background), with Drizzle over it for the tools. The handlers' bundles open theirs
 * with `openPostgres` alone (functions/deps.ts): neither Drizzle nor PGlite is in them.
 */
export async function openDatabase(config: DatabaseConfig): Promise<DatabaseHandle> {
  if (config.kind === 'postgres') return withDrizzle(openPostgres(config));
  // Loaded only when used: the migration and admin bundles (Postgres only) leave PGlite's WASM out.
  const { PGlite } = await import('@electric-sql/pglite');
  const client = new PGlite(config.dataDir);
  return embeddedClient(client, config, () => client.close());
}

const drizzles = new WeakMap<object, Database>();

/**
 * The Postgres client with Drizzle over its current postgres.js client (one per client it
 * replaces); a client that has Drizzle already (a tool's or a test's handle) as it is.
 */
export function withDrizzle(client: DatabaseClient | DatabaseHandle): DatabaseHandle {
  if ('db' in client) return client;
  const drizzleOver = () => {
    const { driver } = client;
    if (driver.kind !== 'postgres') throw new Error('withDrizzle wraps a Postgres client');
    const db = drizzles.get(driver.sql) ?? drizzlePostgres({ client: driver.sql, schema });
    drizzles.set(driver.sql, db);
    return db;
  };
  return forwarding(client, drizzleOver, () => client.close());
}

// As Drizzle's PGlite driver reads them: timestamps, intervals and dates stay Postgres's text.
const asIs = (value: string) => value;
const TEXT_AS_IS = { parsers: { 1114: asIs, 1184: asIs, 1186: asIs, 1082: asIs } };

/** PGlite has no nested transactions: inside one, a savepoint (named by depth, which Postgres allows). */
function pgliteRunner(client: PGlite | Transaction, depth: number): SqlRunner {
  return {
    inTransaction: depth > 0,
    rows: async <T>(statement: Statement) =>
      (await client.query<T>(statement.text, statement.values, TEXT_AS_IS)).rows,
    transaction: async <T>(work: (tx: SqlRunner) => Promise<T>): Promise<T> => {
      if (depth === 0) return (client as PGlite).transaction((tx) => work(pgliteRunner(tx, 1)));
      const name = `nested_${depth}`;
      await client.query(`savepoint ${name}`);
      try {
        const result = await work(pgliteRunner(client, depth + 1));
        await client.query(`release savepoint ${name}`);
        return result;
      } catch (error) {
        await client.query(`rollback to savepoint ${name}`);
        throw error;
      }
    },
  };
}

/** PGlite runs in this process: no connection to lose, no deadline to apply; the work simply runs. */
export async function embeddedClient(
  client: PGlite,
  config: DatabaseConfig,
  close: () => Promise<void>,
): Promise<DatabaseHandle> {
  const { drizzle: drizzlePglite } = await import('drizzle-orm/pglite');
  const db: Database = drizzlePglite({ client, schema });
  const sql = pgliteRunner(client, 0);
  return { config, db, sql, driver: { kind: 'pglite', client }, run: (work) => work(sql), close };
}

/** The same handle, with more to do once it is closed (drop a test database, release a lock). */
export function closingAlso(handle: DatabaseHandle, after: () => void | Promise<void>): DatabaseHandle {
  return forwarding(
    handle,
    () => handle.db,
    () => handle.close().finally(after),
  );
}

/** A handle reading through to `client` on every use: its driver changes when a broken one is replaced. */
function forwarding(client: DatabaseClient, db: () => Database, close: () => Promise<void>): DatabaseHandle {
  return {
    config: client.config,
    get sql() {
      return client.sql;
    },
    get driver() {
      return client.driver;
    },
    get db() {
      return db();
    },
    run: (work, options) => client.run(work, options),
    close,
  };
}

export { DatabaseTimeout, REQUEST_TIMEOUT_MS } from './postgres-client.ts';
