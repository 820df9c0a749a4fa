import { createHash, randomBytes } from 'node:crypto';
import sql from 'sql-template-tag';
import type { SqlRunner } from '../database.ts';

export const TOKEN_PREFIX = 'vak_';

/** `vak_` + 32 random bytes, base64url: recognisable in logs and secret scanners, unguessable. */
export const generateToken = () => `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

export interface Principal {
  keyId: string;
  workspaceId: string;
  principalId: string;
  scopes: string[];
}

/** The live key for a token (not revoked, not expired), marking it used; one statement. */
export async function authenticate(runner: SqlRunner, token: string): Promise<Principal | undefined> {
  const rows = await runner.rows<Principal>(sql`
      update api_keys set last_used_at = now()
      where token_hash = ${hashToken(token)} and revoked_at is null and (expires_at is null or expires_at > now())
      returning id as "keyId", workspace_id as "workspaceId", principal_id as "principalId",
        to_json(scopes) as scopes`);
  return rows[0];
}
