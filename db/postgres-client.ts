import type { DatabaseClient, DatabaseConfig, Driver, RunOptions, SqlRunner } from './database.ts';
import { brokeTheConnection, failurePhase, refusedTheCredentials } from './errors.ts';
import { type DriverSettings, PostgresDriver } from './postgres-driver.ts';

/** Below the functions' 10 s timeout, with room for the answer: a hung database is a 503, not a timeout. */
export const REQUEST_TIMEOUT_MS = 7_000;
/** How many times a read runs again after failing to connect, within its one deadline. */
const READ_REPEATS = 2;
/** How many times any work runs at most, within its one deadline, whatever broke. */
const MAX_ATTEMPTS = 8;
/** How long close() lets queries finish before cutting the connections. */
const CLOSE_SECONDS = 5;

type PostgresConfig = Extract<DatabaseConfig, { kind: 'postgres' }>;

/** A request that waited on the database past its deadline. */
export class DatabaseTimeout extends Error {
  override name = 'DatabaseTimeout';
  readonly code = 'DATABASE_TIMEOUT';
}

/**
 * The API's Postgres client, with Lambda settings by default: one connection per container (the
 * container serves one request at a time), idle connections closed before RDS Proxy would, unnamed
 * statements (docs/decisions.md, "Data"). `run` applies the request
 * deadline, replaces the postgres.js client after a failure that left no usable connection, and
 * runs reads (and work that never reached the server) again on the fresh one. What it asks of
 * postgres.js goes through db/postgres-driver.ts.
 */
export class PostgresClient implements DatabaseClient {
  readonly #settings: DriverSettings;
  readonly #requestTimeoutMs: number;
  #current: PostgresDriver;
  #replacing: Promise<boolean> | undefined;

  constructor(readonly config: PostgresConfig) {
    this.#requestTimeoutMs = config.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
    this.#settings = {
      poolMax: config.poolMax ?? 1,
      connectTimeoutSeconds: config.connectTimeoutSeconds ?? 5,
      // The server gives up on a statement before the request's deadline does.
      statementTimeoutMs: Math.max(1_000, this.#requestTimeoutMs - 1_000),
      applicationName: 'voice-agent-admin-api',
    };
    this.#current = new PostgresDriver(config.url, this.#settings);
  }

  get sql(): SqlRunner {
    return this.#current.runner;
  }

  get driver(): Driver {
    return { kind: 'postgres', sql: this.#current.sql };
  }

  /**
   * Runs one request's database work within the deadline: past it the connections are dropped (a
   * black-holed socket would hold the pool for minutes) and `DatabaseTimeout` is thrown, while the
   * abandoned work settles in the background.
   */
  async run<T>(work: (sql: SqlRunner) => Promise<T>, { repeatable }: RunOptions): Promise<T> {
    let using = this.#current;
    let expired = false;
    const attempts = (async () => {
      let repeats = 0;
      let renewed = false;
      for (let attempt = 1; ; attempt++) {
        const generation = this.#current;
        using = generation;
        try {
          return await work(generation.runner);
        } catch (error) {
          if (!brokeTheConnection(error)) throw error;
          const replacedAlready = generation !== this.#current;
          const newUrl = await this.#replace(generation, error);
          const phase = failurePhase(error);
          if (expired || attempt >= MAX_ATTEMPTS || !(repeatable || phase === 'connecting')) throw error;
          // Again on the fresh client, within the one deadline and MAX_ATTEMPTS. Uncounted: a read after an open
          // connection ended (under repeated kills each fresh one can be ended too), and work that
          // never left a client another failure had already replaced. Counted: a failure to
          // connect (an unavailable database answers 503 at once, not at the deadline); the
          // credentials refreshUrl gave get one try of their own.
          if (phase === 'connecting' ? replacedAlready : repeatable) continue;
          if (newUrl && !renewed) renewed = true;
          else if (++repeats > (repeatable ? READ_REPEATS : 1)) throw error;
        }
      }
    })();
    attempts.catch(() => {}); // settles after the deadline answered: nothing left to tell anyone
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        expired = true;
        const error = new DatabaseTimeout(`No answer from the database within ${this.#requestTimeoutMs} ms.`);
        void this.#replace(using, error);
        reject(error);
      }, this.#requestTimeoutMs);
    });
    try {
      return await Promise.race([attempts, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Replaces `generation` by a new client, whose first statement opens a fresh connection. Only if
   * it is still the current one, so a burst of failures replaces it once, not once each. After
   * refused credentials the new client uses the URL `refreshUrl` gives (a rotated password): true
   * when that URL is a new one.
   */
  #replace(generation: PostgresDriver, error: unknown): Promise<boolean> {
    if (generation !== this.#current) return this.#replacing ?? Promise.resolve(false);
    this.#replacing ??= (async () => {
      let url = generation.url;
      if (this.config.refreshUrl && refusedTheCredentials(error)) {
        url = await this.config.refreshUrl().catch(() => url);
      }
      this.#current = new PostgresDriver(url, this.#settings);
      void generation.retire(0);
      return url !== generation.url;
    })().finally(() => {
      this.#replacing = undefined;
    });
    return this.#replacing;
  }

  close() {
    return this.#current.retire(CLOSE_SECONDS);
  }
}

export function openPostgres(config: PostgresConfig): DatabaseClient {
  return new PostgresClient(config);
}
