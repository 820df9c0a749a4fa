import sql, { type Sql } from 'sql-template-tag';
import type { sessionStatus } from '#contract/enums.ts';
import { SESSION_STALE_AFTER_SECONDS } from '#contract/limits.ts';
import type { Session } from '#contract/schemas/session.ts';
import type { SqlRunner } from '../database.ts';
import { type CallingKey, keyIsLive } from './api-keys.ts';
import { clock } from './clock.ts';
import { eventInsert, sessionEventData } from './events.ts';
import type { JsonText } from './json-text.ts';
import { sessionOne } from './sessions.ts';

// The session write path (issue 26): the transitions that make no ids, and the stale sweep, here;
// the create (create-session.ts) and the completion (complete-session.ts), which make ids, apart,
// so only their bundles carry cuid2. Each transition is one guarded UPDATE: concurrent repeats
// serialise on the session's row and only one changes it.

export type Status = (typeof sessionStatus)[number];

/** A change's outcome: the session as answered, none such in the workspace, or its status forbids it. */
export type Transition =
  | { kind: 'done'; item: JsonText<Session> }
  | { kind: 'missing' }
  | { kind: 'illegal'; status: Status }
  /** A value the session's state refuses (a field of the request, why). */
  | { kind: 'refused'; path: string; message: string }
  /** The session's agent was archived since it was created: it runs no more sessions. */
  | { kind: 'agent-archived' };

/** `updated_at` of a row changed at `now`: never the same instant twice (the ETag rule of docs/decisions.md). */
const bumped = (now: Sql) => sql`greatest(${now}, updated_at + interval '1 millisecond')`;

/**
 * The session as answered (the list's item) and its status; undefined when the caller's workspace
 * has none such. Read only after a change, in its transaction, whose first statement already held
 * the calling key to being live: no second guard.
 */
export async function sessionJson(
  runner: SqlRunner,
  caller: CallingKey,
  sessionId: string,
): Promise<{ item: JsonText<Session>; status: Status } | undefined> {
  const [row] = await runner.rows<{ item: JsonText<Session>; status: Status }>(
    sessionOne(sessionId, caller.workspaceId, sql`true`),
  );
  return row;
}

/** What the session's current status says about a transition that changed nothing. */
export async function unchanged(
  tx: SqlRunner,
  caller: CallingKey,
  sessionId: string,
  alreadyDone: Status,
): Promise<Transition> {
  const found = await sessionJson(tx, caller, sessionId);
  if (!found) return { kind: 'missing' };
  return found.status === alreadyDone
    ? { kind: 'done', item: found.item }
    : { kind: 'illegal', status: found.status };
}

/**
 * PENDING → IN_PROGRESS; a repeat on a session in progress answers it unchanged. The change's
 * statement carries the calling key's guard, so a key no longer live changes nothing. `at`: the
 * seed's clock (clock.ts); the API's is now.
 */
export async function startSession(
  tx: SqlRunner,
  caller: CallingKey,
  sessionId: string,
  at?: string,
): Promise<Transition> {
  const { workspaceId: ws } = caller;
  const now = clock(at);
  // The agent's row is held (for share) by the statement that starts: an archive waits for it, and
  // a start after an archive finds the agent archived.
  await tx.rows(sql`
    with started as (
      update sessions s set status = 'IN_PROGRESS', started_at = ${now}, last_heartbeat_at = ${now},
        updated_at = ${bumped(now)}
      where s.id = ${sessionId} and s.workspace_id = ${ws} and s.status = 'PENDING'
        and exists (select 1 from agents a where a.id = s.agent_id and a.archived_at is null
          and a.status <> 'ARCHIVED' for share)
      returning *
    ), ev as (${eventInsert('session.started', sql`select workspace_id, ${sessionEventData()} as data from started`, now)})
    select 1 where ${keyIsLive(caller.keyId)}`);
  const outcome = await unchanged(tx, caller, sessionId, 'IN_PROGRESS');
  // Still PENDING after the start: only its agent's archive holds it back.
  return outcome.kind === 'illegal' && outcome.status === 'PENDING' ? { kind: 'agent-archived' } : outcome;
}

/**
 * An IN_PROGRESS session's sign of life: one statement on the hot path (the calling key's guard
 * included); only a refused heartbeat reads the session to say why. Returns the heartbeat's time,
 * or why there is none. `at`: the seed's clock; the API's is now (and the statement then the same
 * text as without one).
 */
export async function heartbeatSession(
  runner: SqlRunner,
  caller: CallingKey,
  sessionId: string,
  at?: string,
): Promise<{ kind: 'done'; at: string } | { kind: 'missing' } | { kind: 'illegal'; status: Status }> {
  const { workspaceId: ws } = caller;
  const now = clock(at);
  const [row] = await runner.rows<{ at: string }>(sql`
    update sessions set last_heartbeat_at = ${now}, updated_at = ${bumped(now)}
    where id = ${sessionId} and workspace_id = ${ws} and status = 'IN_PROGRESS'
      and ${keyIsLive(caller.keyId)}
    returning last_heartbeat_at as at`);
  if (row) return { kind: 'done', at: new Date(row.at).toISOString() };
  const [found] = await runner.rows<{ status: Status }>(sql`
    select status as status from sessions where id = ${sessionId} and workspace_id = ${ws}`);
  return found ? { kind: 'illegal', status: found.status } : { kind: 'missing' };
}

/** Seconds without a heartbeat (or, never started, since creation) after which the sweep completes a session. */
export const STALE_AFTER = `${SESSION_STALE_AFTER_SECONDS} seconds`;

/**
 * Completes every session, in every workspace, whose last sign of life (its heartbeat, or its
 * creation when it never started) is older than the limit, in one statement served by the
 * partial index `sessions_open_last_seen`. `completedMeta.reason` says why; `endedAt` is the last
 * heartbeat (null for one that never started). Returns how many it completed.
 */
export async function sweepStaleSessions(runner: SqlRunner): Promise<number> {
  const [row] = await runner.rows<{ n: number }>(sql`
    with swept as (
      update sessions s set status = 'COMPLETED', completed_at = now(), ended_at = s.last_heartbeat_at,
        completed_meta = jsonb_build_object('reason',
          case when s.status = 'PENDING' then 'NEVER_STARTED' else 'STALE_HEARTBEAT' end),
        updated_at = greatest(now(), s.updated_at + interval '1 millisecond')
      where s.status <> 'COMPLETED'
        and coalesce(s.last_heartbeat_at, s.created_at) < now() - ${STALE_AFTER}::interval
      returning s.*
    ), ended as (
      update conversations c set last_session_ended_at = greatest(c.last_session_ended_at, x.ended),
        updated_at = greatest(now(), c.updated_at + interval '1 millisecond')
      from (select conversation_id as id, max(ended_at) as ended from swept
        where ended_at is not null group by 1) x
      where c.id = x.id
      returning c.id
    ), ev as (${eventInsert('session.completed', sql`select workspace_id, ${sessionEventData()} as data from swept`)})
    select (select count(*) from swept)::int as n, (select count(*) from ended)::int as ended`);
  return row?.n ?? 0;
}
