// Database errors: a failure a user can act on when opening one, and what a failure means for the
// request (503 or not) and for the connection it ran on (replace it or not).
import type { LocalServer } from './embedded-lock.ts';

/** A database failure the user can act on (not reachable, not migrated…): its message says what to do. */
export class DatabaseUnusable extends Error {}

/** The embedded database is held by another process; by `npm start` when `server` is set. */
export class EmbeddedDatabaseHeld extends DatabaseUnusable {
  constructor(
    message: string,
    readonly server?: LocalServer,
  ) {
    super(message);
  }
}

/** Drizzle wraps driver errors (`DrizzleQueryError`): look down the `cause` chain. */
export function* causes(error: unknown): Generator<{ code?: unknown; message?: unknown; query?: unknown }> {
  let current = error;
  for (let depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
    yield current as { code?: unknown };
    current = (current as { cause?: unknown }).cause;
  }
}

/**
 * Where a database failure happened, which decides what it means:
 * - `connecting`: while a connection was being obtained, before the statement reached the server
 *   (refused, reset, DNS, TLS, timeout, or any server error during startup and authentication:
 *   55000, 3D000, 28P01, 53300, 57P03…). The database is unavailable; nothing was done.
 * - `connection`: an open connection broke (a network errno, the server ending the session, our
 *   request deadline). Unavailable; what the statement did is unknown.
 * - `statement`: the server answered the statement with an error (a constraint, a bug, a timeout).
 * - `elsewhere`: not a database failure at all.
 */
export type FailurePhase = 'connecting' | 'connection' | 'statement' | 'elsewhere';

// postgres.js rejects a statement it never sent with an error whose `query` is empty; so do its
// own complaints about a statement's parameters, which are bugs in how it was called.
const PARAMETER_BUG = /^(UNDEFINED_VALUE|MAX_PARAMETERS_EXCEEDED|NOT_TAGGED_CALL)$/;
const neverSent = (e: { code?: unknown; query?: unknown }) =>
  Object.hasOwn(e, 'query') &&
  e.query === undefined &&
  !(e instanceof TypeError || e instanceof RangeError) &&
  !(typeof e.code === 'string' && PARAMETER_BUG.test(e.code));

// A network errno (ECONNRESET, EPIPE…), a postgres.js connection state, our request deadline
// (postgres-client.ts), or the server ending the session (class 08, 57P01-57P03).
const BROKEN_CONNECTION =
  /^(E[A-Z]+|CONNECT_TIMEOUT|CONNECTION_[A-Z]+|DATABASE_TIMEOUT|08[0-9A-Z]{3}|57P0[1-3])$/;
// Five characters, but not a five-letter errno such as EPIPE (no SQLSTATE class starts with E).
const SQLSTATE = /^(?!E[A-Z]{4}$)[0-9A-Z]{5}$/;

export function failurePhase(error: unknown): FailurePhase {
  const chain = [...causes(error)];
  if (chain.some((e) => neverSent(e) || e.code === 'CONNECT_TIMEOUT')) return 'connecting';
  const codes = chain.map((e) => e.code).filter((c): c is string => typeof c === 'string');
  if (codes.some((c) => BROKEN_CONNECTION.test(c))) return 'connection';
  if (codes.some((c) => SQLSTATE.test(c))) return 'statement';
  return 'elsewhere';
}

/** The failure left no usable connection: the client replaces it (postgres-client.ts). */
export const brokeTheConnection = (error: unknown) => {
  const phase = failurePhase(error);
  return phase === 'connecting' || phase === 'connection';
};

// The server is there but cannot serve this statement now: out of resources (class 53),
// statement timeout, serialization failure or deadlock (all worth a retry by the client).
const TRANSIENT_SQLSTATE = /^(53[0-9A-Z]{3}|57014|40001|40P01)$/;

/** "The database is not there right now", not "this request was wrong": a 503. */
export const isDatabaseUnavailable = (error: unknown) =>
  brokeTheConnection(error) || TRANSIENT_SQLSTATE.test(sqlState(error) ?? '');

/** The server refused the credentials while connecting: a rotated password, perhaps. */
export const refusedTheCredentials = (error: unknown) =>
  failurePhase(error) === 'connecting' && /^28(P01|000)$/.test(sqlState(error) ?? '');

/** The SQLSTATE of a Postgres error anywhere in the chain, e.g. `23505` for a unique violation. */
export function sqlState(error: unknown): string | undefined {
  for (const e of causes(error)) {
    if (typeof e.code === 'string' && SQLSTATE.test(e.code)) return e.code;
  }
  return undefined;
}

/** The constraint a Postgres error names, when it names one. */
export function constraintName(error: unknown): string | undefined {
  for (const e of causes(error)) {
    const c =
      (e as { constraint_name?: unknown; constraint?: unknown }).constraint_name ??
      (e as { constraint?: unknown }).constraint;
    if (typeof c === 'string') return c;
  }
  return undefined;
}
