import { createHash, randomBytes } from 'node:crypto';
import sql, { type Sql } from 'sql-template-tag';
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

/**
 * The key a route's request came with, and its workspace: every statement is scoped by the one and
 * guarded by the other (`keyIsLive`).
 */
export interface CallingKey {
  workspaceId: string;
  keyId: string;
}

/**
 * The SQLSTATE `api_key_live` raises (migration 0006): a class of our own, not class 28, whose
 * codes the client reads as "refresh the credentials" when they come while connecting.
 */
export const KEY_NOT_LIVE = 'VA403';

/**
 * True while the key is live (not revoked, not expired); otherwise the statement fails with
 * KEY_NOT_LIVE, so nothing it would have written is kept. It names no column: in a statement's
 * top-level WHERE the planner makes it a one-time filter at the top of the plan, evaluated once
 * before anything else runs, even when no row matches (docs/decisions.md, "Revocation at once").
 */
export const keyIsLive = (keyId: string): Sql => sql`api_key_live(${keyId}::varchar)`;
