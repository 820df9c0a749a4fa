import { createHash, randomBytes } from 'node:crypto';
import sql from 'sql-template-tag';
import type { SqlRunner } from '../database.ts';
import { apiKeys as K } from './names.generated.ts';

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
      update ${K.$} set ${K.lastUsedAt} = now()
      where ${K.tokenHash} = ${hashToken(token)} and ${K.revokedAt} is null
        and (${K.expiresAt} is null or ${K.expiresAt} > now())
      returning ${K.id} as "keyId", ${K.workspaceId} as "workspaceId", ${K.principalId} as "principalId",
        to_json(${K.scopes}) as scopes`);
  return rows[0];
}
