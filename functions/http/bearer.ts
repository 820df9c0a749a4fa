import type { SqlRunner } from '#db/database.ts';
import { authenticate, type Principal, TOKEN_PREFIX } from '#db/queries/api-keys.ts';

// `vak_` + 43 base64url characters (32 bytes); anything else is refused without a database call.
const TOKEN_SHAPE = new RegExp(`^${TOKEN_PREFIX}[A-Za-z0-9_-]{43}$`);

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive, RFC 9110). */
export function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer +(\S+) *$/i.exec(header ?? '');
  const token = match?.[1];
  return token && TOKEN_SHAPE.test(token) ? token : undefined;
}

/** The live key behind an Authorization header, or undefined. Throws only when the database does. */
export async function principalFor(
  sql: SqlRunner,
  header: string | undefined,
): Promise<Principal | undefined> {
  const token = bearerToken(header);
  return token ? authenticate(sql, token) : undefined;
}
