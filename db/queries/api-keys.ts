import { createHash, randomBytes } from 'node:crypto';
import sql from 'sql-template-tag';
import type { SqlRunner } from '../database.ts';
import { apiKeys as K, workspaces as W } from './names.generated.ts';

export const TOKEN_PREFIX = 'vak_';

/** `vak_` + 32 random bytes, base64url: recognisable in logs and secret scanners, unguessable. */
export const generateToken = () => `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

export interface Principal {
  keyId: string;
  workspaceId: string;
  principalId: string;
  scopes: string[];
  /** The workspace's tier (contract/tiers.ts), for the limits the gateway applies. */
  tier: string;
}

/** The live key for a token (not revoked, not expired) and its workspace's tier, marking it used; one statement. */
export async function authenticate(runner: SqlRunner, token: string): Promise<Principal | undefined> {
  const rows = await runner.rows<Principal>(sql`
      update ${K.$} k set ${K.lastUsedAt} = now()
      from ${W.$} w
      where k.${K.tokenHash} = ${hashToken(token)} and k.${K.revokedAt} is null
        and (k.${K.expiresAt} is null or k.${K.expiresAt} > now()) and w.${W.id} = k.${K.workspaceId}
      returning k.${K.id} as "keyId", k.${K.workspaceId} as "workspaceId", k.${K.principalId} as "principalId",
        to_json(k.${K.scopes}) as scopes, w.${W.tier}::text as tier`);
  return rows[0];
}
