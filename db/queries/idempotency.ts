import sql from 'sql-template-tag';
import { IDEMPOTENCY_KEY_HOURS } from '#contract/limits.ts';
import type { SqlRunner } from '../database.ts';

/** How long a key remembers its answer, and after how long an unfinished claim counts as abandoned. */
export const KEY_LIFETIME = `${IDEMPOTENCY_KEY_HOURS} hours`;
// Longer than any route function may run (10 s), so no live request still holds such a claim.
export const ABANDONED_AFTER = '15 seconds';

export type Claim =
  | { kind: 'claimed' }
  | { kind: 'replay'; status: number; body: string }
  | { kind: 'in-flight' }
  | { kind: 'mismatch' };

/**
 * Claims `key` for a request with this fingerprint: a new key, an expired one or one whose first
 * request died (claimed long ago, never answered) is taken; otherwise say what the key holds.
 */
export async function claimKey(
  runner: SqlRunner,
  workspaceId: string,
  key: string,
  requestHash: string,
): Promise<Claim> {
  const claimed = await runner.rows(sql`
      insert into idempotency_keys as k (workspace_id, key, request_hash) values (${workspaceId}, ${key}, ${requestHash})
      on conflict (workspace_id, key) do update
        set request_hash = excluded.request_hash, response_status = null, response_body = null, created_at = now()
        where k.created_at < now() - ${KEY_LIFETIME}::interval
           or (k.response_status is null and k.created_at < now() - ${ABANDONED_AFTER}::interval)
      returning 1`);
  if (claimed.length > 0) return { kind: 'claimed' };
  const [held] = await runner.rows<{
    request_hash: string;
    response_status: number | null;
    response_body: string | null;
  }>(sql`
      select request_hash, response_status, response_body from idempotency_keys
      where workspace_id = ${workspaceId} and key = ${key}`);
  // Deleted between the two statements (released after a failure): treat as still in flight.
  if (!held) return { kind: 'in-flight' };
  if (held.request_hash !== requestHash) return { kind: 'mismatch' };
  if (held.response_status === null || held.response_body === null) return { kind: 'in-flight' };
  return { kind: 'replay', status: held.response_status, body: held.response_body };
}

/** Records the answer; run in the same transaction as the work it answers for. */
export async function completeKey(
  runner: SqlRunner,
  workspaceId: string,
  key: string,
  status: number,
  body: string,
) {
  await runner.rows(sql`
    update idempotency_keys set response_status = ${status}, response_body = ${body}
    where workspace_id = ${workspaceId} and key = ${key}`);
}

/** Frees a claim whose request failed without an answer worth replaying, so a retry can run. */
export async function releaseKey(runner: SqlRunner, workspaceId: string, key: string) {
  await runner.rows(sql`
    delete from idempotency_keys
    where workspace_id = ${workspaceId} and key = ${key} and response_status is null`);
}
