import { createHash, randomBytes } from 'node:crypto';
import sql, { type Sql } from 'sql-template-tag';
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
  /** The workspace's tier (contract/tiers.ts), for the limits the gateway applies. */
  tier: string;
}

/**
 * The live key for a token (not revoked, not expired) and its workspace's tier; one statement. It
 * marks the key used at most once a minute: a busy key's row is not rewritten (and locked, and
 * flushed) by every request, which would serialize them all on that row.
 */
export async function authenticate(runner: SqlRunner, token: string): Promise<Principal | undefined> {
  const rows = await runner.rows<Principal>(sql`
      with live as (
        select k.id, k.workspace_id, k.principal_id, k.scopes, k.last_used_at, w.tier
        from api_keys k
        join workspaces w on w.id = k.workspace_id
        where k.token_hash = ${hashToken(token)} and k.revoked_at is null
          and (k.expires_at is null or k.expires_at > now())
      ), marked as (
        update api_keys k set last_used_at = now()
        from live
        where k.id = live.id
          and (live.last_used_at is null or live.last_used_at < now() - interval '1 minute')
      )
      select id as "keyId", workspace_id as "workspaceId", principal_id as "principalId",
        to_json(scopes) as scopes, tier::text as tier
      from live`);
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
