import { createHash } from 'node:crypto';
import type { SqlRunner } from '#db/database.ts';
import { authenticate, type Principal, TOKEN_PREFIX } from '#db/queries/api-keys.ts';

/** `vak_` + 43 base64url characters (32 bytes); anything else is refused without a database call. */
export const TOKEN_PATTERN = `${TOKEN_PREFIX}[A-Za-z0-9_-]{43}`;
/**
 * The whole `Authorization` value of a request worth looking up: `Bearer` (any case, RFC 9110), then
 * a token. Written without flags, so the web ACL matches exactly this (infra/constructs/waf.ts).
 */
export const AUTHORIZATION_PATTERN = `^[Bb][Ee][Aa][Rr][Ee][Rr] +(${TOKEN_PATTERN}) *$`;
const AUTHORIZATION = new RegExp(AUTHORIZATION_PATTERN);

/** The token of an `Authorization: Bearer <token>` header, or undefined when it is not that shape. */
export function bearerToken(header: string | undefined): string | undefined {
  return AUTHORIZATION.exec(header ?? '')?.[1];
}

/**
 * Tokens the database did not know, by SHA-256, for a while: a flood of made-up tokens costs one
 * lookup per token, not one per request, whether API Gateway's cache is cold, keyed on another
 * spelling of the header, or bypassed (a function re-authenticating a deferred request). Bounded:
 * the oldest refusal goes first. Safe to keep: a token is random, so none becomes valid after it
 * was refused, and a revoked one stays refused. Per container, like the connection.
 */
export class Refusals {
  readonly #until = new Map<string, number>();
  constructor(
    readonly ttlMs = 300_000,
    readonly maxEntries = 50_000,
    readonly now: () => number = Date.now,
  ) {}
  static keyOf = (token: string) => createHash('sha256').update(token).digest('base64url');
  get size() {
    return this.#until.size;
  }
  has(token: string): boolean {
    const key = Refusals.keyOf(token);
    const until = this.#until.get(key);
    if (until === undefined) return false;
    if (until > this.now()) return true;
    this.#until.delete(key);
    return false;
  }
  add(token: string) {
    const key = Refusals.keyOf(token);
    this.#until.delete(key);
    while (this.#until.size >= this.maxEntries) this.#until.delete(this.#until.keys().next().value as string);
    this.#until.set(key, this.now() + this.ttlMs);
  }
}

/** This container's refusals, shared by the authorizer and every route's re-authentication. */
export const refusals = new Refusals();

/**
 * The live key behind an Authorization header, or undefined: a header not of the token's shape and
 * a token refused lately cost no lookup. Throws only when the database does.
 */
export async function principalFor(
  sql: SqlRunner,
  header: string | undefined,
  refused: Refusals = refusals,
): Promise<Principal | undefined> {
  const token = bearerToken(header);
  if (token === undefined || refused.has(token)) return undefined;
  const principal = await authenticate(sql, token);
  if (!principal) refused.add(token);
  return principal;
}
