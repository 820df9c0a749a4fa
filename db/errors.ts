// What a database error means for the request (503 or not) and for the connection it ran on (replace it or not).

/** Drizzle wraps driver errors (`DrizzleQueryError`): look down the `cause` chain. */
export function* causes(error: unknown): Generator<{ code?: unknown; message?: unknown }> {
  let current = error;
  for (let depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
    yield current as { code?: unknown };
    current = (current as { cause?: unknown }).cause;
  }
}

// A connection that failed like this cannot be trusted again: a network errno, a postgres.js
// connection state, the request deadline (postgres-client.ts), or the server ending the session
// (class 08, 57P01-57P03).
const BROKEN_CONNECTION =
  /^(E[A-Z]+|CONNECT_TIMEOUT|CONNECTION_[A-Z]+|DATABASE_TIMEOUT|08[0-9A-Z]{3}|57P0[1-3])$/;
// The server is there but cannot serve now: too many connections, statement timeout,
// serialization failure or deadlock (all worth a retry).
const TRANSIENT_SQLSTATE = /^(53300|57014|40001|40P01)$/;

const hasCode = (error: unknown, pattern: RegExp) => {
  for (const e of causes(error)) if (typeof e.code === 'string' && pattern.test(e.code)) return true;
  return false;
};

/** The failure broke the connection it ran on: the client replaces it (postgres-client.ts). */
export const brokeTheConnection = (error: unknown) => hasCode(error, BROKEN_CONNECTION);

/** "The database is not there right now", not "this request was wrong": a 503. */
export const isDatabaseUnavailable = (error: unknown) =>
  brokeTheConnection(error) || hasCode(error, TRANSIENT_SQLSTATE);

/** The SQLSTATE of a Postgres error anywhere in the chain, e.g. `23505` for a unique violation. */
export function sqlState(error: unknown): string | undefined {
  for (const e of causes(error)) {
    if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) return e.code;
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
