/** Errors that mean "the database is not there right now", not "this request was wrong". */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  // db/client.ts: no answer within the request's deadline.
  'DATABASE_TIMEOUT',
]);

// 08: connection exception; 53300: too many connections; 57P0x: shutdown or starting;
// 57014: statement timeout; 40001/40P01: serialization failure or deadlock (retryable).
const TRANSIENT_SQLSTATE = /^(08...|53300|57P0[1-3]|57014|40001|40P01)$/;

/** Drizzle wraps driver errors (`DrizzleQueryError`): look down the `cause` chain. */
export function* causes(error: unknown): Generator<{ code?: unknown; message?: unknown }> {
  let current = error;
  for (let depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
    yield current as { code?: unknown };
    current = (current as { cause?: unknown }).cause;
  }
}

export function isDatabaseUnavailable(error: unknown): boolean {
  for (const e of causes(error)) {
    if (typeof e.code !== 'string') continue;
    if (NETWORK_CODES.has(e.code) || TRANSIENT_SQLSTATE.test(e.code)) return true;
  }
  return false;
}

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
