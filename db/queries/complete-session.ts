import sql from 'sql-template-tag';
import { ENDED_AT_SKEW_SECONDS } from '#contract/limits.ts';
import type { SqlRunner } from '../database.ts';
import { type CallingKey, keyIsLive } from './api-keys.ts';
import { clock } from './clock.ts';
import { eventInsert, sessionEventData } from './events.ts';
import { idMaker } from './ids.ts';
import { type Transition, unchanged } from './session-writes.ts';

export interface Completion {
  endedAt: string | null;
  traceId: string | null;
  /** Booked once per session as a VOICE_USAGE ledger entry; null: none. */
  usage: { amount: number } | null;
  principalId: string;
  /** Seeds only: when it was completed (clock.ts); the API's: now. */
  at?: string;
}

/**
 * PENDING or IN_PROGRESS → COMPLETED, and the usage booked, in one statement (which fails, keeping
 * nothing, for a calling key no longer live). Only the first
 * completion changes the session (the others find it COMPLETED once they hold its row); the
 * ledger's unique index on `session_id` books at most one entry, so a usage sent after the sweep
 * completed the session is still booked once, and every repeat answers the same session.
 */
export async function completeSession(
  tx: SqlRunner,
  caller: CallingKey,
  sessionId: string,
  completion: Completion,
): Promise<Transition> {
  const { workspaceId: ws } = caller;
  const meta = completion.traceId === null ? null : JSON.stringify({ traceId: completion.traceId });
  const amount = completion.usage?.amount ?? null;
  const by = completion.principalId;
  const now = clock(completion.at);
  const createId = await idMaker();
  const ended = sql`${completion.endedAt}::timestamptz`;
  // Why an endedAt is refused for the session `s` as it was; null: it is not.
  const refusal = sql`case when ${ended} < coalesce(s.started_at, s.created_at) then 'before'
    when ${ended} > ${now} + ${`${ENDED_AT_SKEW_SECONDS} seconds`}::interval then 'future' end`;
  const [row] = await tx.rows<{ refused: 'before' | 'future' | null }>(sql`
    with done as (
      update sessions s set status = 'COMPLETED', completed_at = ${now},
        ended_at = coalesce(${completion.endedAt}::timestamptz, ${now}), completed_meta = ${meta}::jsonb,
        updated_at = greatest(${now}, s.updated_at + interval '1 millisecond')
      where s.id = ${sessionId} and s.workspace_id = ${ws} and s.status <> 'COMPLETED'
        and (${refusal}) is null
      returning s.*
    ), booked as (
      -- After done (it reads its count): the row lock first, then the ledger's unique key, in
      -- every transaction, so two concurrent completions cannot deadlock.
      insert into ledger_entries (id, created_at, updated_at, workspace_id, amount, reason,
        agent_id, session_id, idempotency_key, created_by, updated_by)
      select ${createId()}, ${now}, ${now}, s.workspace_id, ${amount}::int, 'VOICE_USAGE', s.agent_id, s.id,
        ${`session-usage:${sessionId}`}, ${by}, ${by}
      from sessions s, (select count(*) as n from done) d
      where s.id = ${sessionId} and s.workspace_id = ${ws} and ${amount}::int is not null
      on conflict (session_id) where session_id is not null do nothing
      returning *
    ), ended as (
      update conversations c set last_session_ended_at = greatest(c.last_session_ended_at, done.ended_at),
        updated_at = greatest(${now}, c.updated_at + interval '1 millisecond')
      from done where c.id = done.conversation_id
      returning c.id
    ), completed as (${eventInsert('session.completed', sql`select workspace_id, ${sessionEventData()} as data from done`, now)}
    ), usage as (${eventInsert(
      'usage.booked',
      sql`select workspace_id, jsonb_build_object('ledgerEntryId', id, 'sessionId', session_id,
        'agentId', agent_id, 'amount', amount, 'reason', reason) as data from booked`,
      now,
    )})
    select (select count(*) from done)::int as completed, (select count(*) from booked)::int as booked,
      (select count(*) from ended)::int as ended,
      (select ${refusal} from sessions s where s.id = ${sessionId} and s.workspace_id = ${ws}
        and s.status <> 'COMPLETED' and not exists (select 1 from done)) as refused
    where ${keyIsLive(caller.keyId)}`);
  if (row?.refused === 'before') {
    return {
      kind: 'refused',
      path: 'endedAt',
      message: 'must not be before the session started (or, never started, was created)',
    };
  }
  if (row?.refused === 'future') {
    return {
      kind: 'refused',
      path: 'endedAt',
      message: `must not be more than ${ENDED_AT_SKEW_SECONDS} seconds ahead of the server's clock`,
    };
  }
  return unchanged(tx, caller, sessionId, 'COMPLETED');
}
