import sql, { raw, type Sql } from 'sql-template-tag';
import type { sessionStatus } from '#contract/enums.ts';
import { SESSION_STALE_AFTER_SECONDS } from '#contract/limits.ts';
import type { Session } from '#contract/schemas/session.ts';
import type { SqlRunner } from '../database.ts';
import { type CallingKey, keyIsLive } from './api-keys.ts';
import { clock } from './clock.ts';
import { eventInsert, sessionEventData } from './events.ts';
import { sessionOne } from './items.generated.ts';
import type { JsonText } from './json-text.ts';
import { agents as A, conversations as C, sessions as S } from './names.generated.ts';

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
const bumped = (now: Sql) => sql`greatest(${now}, ${S.updatedAt} + interval '1 millisecond')`;

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
    sessionOne(sql`${sessionId}`, sql`${caller.workspaceId}`, raw('true')),
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
      update ${S.$} s set ${S.status} = 'IN_PROGRESS', ${S.startedAt} = ${now}, ${S.lastHeartbeatAt} = ${now},
        ${S.updatedAt} = ${bumped(now)}
      where s.${S.id} = ${sessionId} and s.${S.workspaceId} = ${ws} and s.${S.status} = 'PENDING'
        and exists (select 1 from ${A.$} a where a.${A.id} = s.${S.agentId} and a.${A.archivedAt} is null
          and a.${A.status} <> 'ARCHIVED' for share)
      returning *
    ), ev as (${eventInsert('session.started', sql`select ${S.workspaceId} as workspace_id, ${sessionEventData('started')} as data from started`, now)})
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
    update ${S.$} set ${S.lastHeartbeatAt} = ${now}, ${S.updatedAt} = ${bumped(now)}
    where ${S.id} = ${sessionId} and ${S.workspaceId} = ${ws} and ${S.status} = 'IN_PROGRESS'
      and ${keyIsLive(caller.keyId)}
    returning ${S.lastHeartbeatAt} as at`);
  if (row) return { kind: 'done', at: new Date(row.at).toISOString() };
  const [found] = await runner.rows<{ status: Status }>(sql`
    select ${S.status} as status from ${S.$} where ${S.id} = ${sessionId} and ${S.workspaceId} = ${ws}`);
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
      update ${S.$} s set ${S.status} = 'COMPLETED', ${S.completedAt} = now(), ${S.endedAt} = s.${S.lastHeartbeatAt},
        ${S.completedMeta} = jsonb_build_object('reason',
          case when s.${S.status} = 'PENDING' then 'NEVER_STARTED' else 'STALE_HEARTBEAT' end),
        ${S.updatedAt} = greatest(now(), s.${S.updatedAt} + interval '1 millisecond')
      where s.${S.status} <> 'COMPLETED'
        and coalesce(s.${S.lastHeartbeatAt}, s.${S.createdAt}) < now() - ${STALE_AFTER}::interval
      returning s.*
    ), ended as (
      update ${C.$} c set ${C.lastSessionEndedAt} = greatest(c.${C.lastSessionEndedAt}, x.ended),
        ${C.updatedAt} = greatest(now(), c.${C.updatedAt} + interval '1 millisecond')
      from (select ${S.conversationId} as id, max(${S.endedAt}) as ended from swept
        where ${S.endedAt} is not null group by 1) x
      where c.${C.id} = x.id
      returning c.${C.id}
    ), ev as (${eventInsert('session.completed', sql`select ${S.workspaceId} as workspace_id, ${sessionEventData('swept')} as data from swept`)})
    select (select count(*) from swept)::int as n, (select count(*) from ended)::int as ended`);
  return row?.n ?? 0;
}
