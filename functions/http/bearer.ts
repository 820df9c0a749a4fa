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

/** The live key behind an Authorization header, or undefined. Throws only when the database does. */
export async function principalFor(
  sql: SqlRunner,
  header: string | undefined,
): Promise<Principal | undefined> {
  const token = bearerToken(header);
  return token ? authenticate(sql, token) : undefined;
}
