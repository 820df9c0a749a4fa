import sql from 'sql-template-tag';
import { IDEMPOTENCY_KEY_HOURS } from '#contract/limits.ts';
import type { SqlRunner } from '../database.ts';
import { type CallingKey, keyIsLive } from './api-keys.ts';

/** How long a key remembers its answer, and after how long an unfinished claim counts as abandoned. */
export const KEY_LIFETIME = `${IDEMPOTENCY_KEY_HOURS} hours`;
// Longer than any route function may run (10 s), so no live request still holds such a claim.
export const ABANDONED_AFTER = '15 seconds';

export type Claim =
  | { kind: 'claimed' }
  | { kind: 'replay'; status: number; body: string; headers: Record<string, string> }
  | { kind: 'in-flight' }
  | { kind: 'mismatch' };

/**
 * Claims `key` for a request with this fingerprint in the caller's workspace: a new key, an expired
 * one or one whose first request died (claimed long ago, never answered) is taken; otherwise say
 * what the key holds. The request's first statement, so it carries the calling key's guard: a key
 * no longer live claims nothing and replays nothing.
 */
export async function claimKey(
  runner: SqlRunner,
  caller: CallingKey,
  key: string,
  requestHash: string,
): Promise<Claim> {
  const { workspaceId } = caller;
  const claimed = await runner.rows(sql`
      insert into idempotency_keys as k (workspace_id, key, request_hash)
      select ${workspaceId}, ${key}, ${requestHash} where ${keyIsLive(caller.keyId)}
      on conflict (workspace_id, key) do update
        set request_hash = excluded.request_hash, response_status = null, response_body = null,
          response_headers = null, created_at = now()
        where k.created_at < now() - ${KEY_LIFETIME}::interval
           or (k.response_status is null and k.created_at < now() - ${ABANDONED_AFTER}::interval)
      returning 1`);
  if (claimed.length > 0) return { kind: 'claimed' };
  const [held] = await runner.rows<{
    requestHash: string;
    responseStatus: number | null;
    responseBody: string | null;
    responseHeaders: string | null;
  }>(sql`
      select request_hash as "requestHash", response_status as "responseStatus",
        response_body as "responseBody", response_headers::text as "responseHeaders"
      from idempotency_keys where workspace_id = ${workspaceId} and key = ${key}`);
  // Deleted between the two statements (released after a failure): treat as still in flight.
  if (!held) return { kind: 'in-flight' };
  if (held.requestHash !== requestHash) return { kind: 'mismatch' };
  if (held.responseStatus === null || held.responseBody === null) return { kind: 'in-flight' };
  const headers = held.responseHeaders ? (JSON.parse(held.responseHeaders) as Record<string, string>) : {};
  return { kind: 'replay', status: held.responseStatus, body: held.responseBody, headers };
}

/**
 * Records the answer (with its own headers, e.g. an ETag, if any); run in the same transaction as
 * the work it answers for.
 */
export async function completeKey(
  runner: SqlRunner,
  workspaceId: string,
  key: string,
  status: number,
  body: string,
  headers: Record<string, string> = {},
) {
  const kept = Object.keys(headers).length > 0 ? JSON.stringify(headers) : null;
  await runner.rows(sql`
    update idempotency_keys set response_status = ${status}, response_body = ${body},
      response_headers = ${kept}::jsonb
    where workspace_id = ${workspaceId} and key = ${key}`);
}

/** Frees a claim whose request failed without an answer worth replaying, so a retry can run. */
export async function releaseKey(runner: SqlRunner, workspaceId: string, key: string) {
  await runner.rows(sql`
    delete from idempotency_keys
    where workspace_id = ${workspaceId} and key = ${key} and response_status is null`);
}
