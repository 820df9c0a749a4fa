import sql, { type Sql } from 'sql-template-tag';
import type { eventTypes } from '#contract/enums.ts';
import { EVENT_RETENTION_DAYS } from '#contract/limits.ts';
import type { SqlRunner } from '../database.ts';
import { type CallingKey, keyIsLive } from './api-keys.ts';
import { clock } from './clock.ts';
import { isoTime } from './projections.ts';

export type EventType = (typeof eventTypes)[number];

/**
 * The outbox's insert, for a change's own statement or transaction (so the event commits with the
 * change or not at all): one event of `type` per row of `rows`, a SELECT of `workspace_id` and
 * `data` (a jsonb object), occurring `at` (the change's clock, clock.ts: now for the API). Used as a
 * CTE, e.g. `ev as (${eventInsert('session.started', sql`select workspace_id, jsonb_build_object(…)
 * from changed`)})`, or run alone. Every other column is the table's default: a fresh id, the
 * writing transaction's id.
 */
export const eventInsert = (type: EventType, rows: Sql, at: Sql = clock()): Sql => sql`
  insert into events (type, workspace_id, data, occurred_at)
  select ${type}::varchar, r.workspace_id, r.data, ${at} from (${rows}) r
  returning id`;

/** Where a feed reader stands: after this event. */
export interface FeedPosition {
  txid: number;
  seq: number;
}

/** One event as it leaves the system: the envelope GET /events answers and the relay publishes. */
export interface EventEnvelope {
  id: string;
  type: EventType;
  occurredAt: string;
  workspaceId: string;
  data: Record<string, unknown>;
}

interface EventRow {
  id: string;
  type: EventType;
  occurredAt: string;
  workspaceId: string;
  data: Record<string, unknown>;
  txid: string;
  seq: string;
}

export const envelopeOf = (row: Omit<EventRow, 'txid' | 'seq'>): EventEnvelope => ({
  id: row.id,
  type: row.type,
  occurredAt: new Date(row.occurredAt).toISOString(),
  workspaceId: row.workspaceId,
  data: row.data,
});

// `txid` and `seq` leave as text (a bigint past 2^53 stays exact in JSON and cursors). An ORDER BY
// name means the output column first, so the statements order by `events.txid, events.seq`: the
// numbers, not these texts ("10" < "9").
const COLUMNS = sql`id, type, occurred_at as "occurredAt",
  workspace_id as "workspaceId", data, txid::text as txid, seq::text as seq`;

/**
 * Transactions older than every one still running: their events are all committed or gone, so a
 * reader past them can never miss one that commits later (docs/decisions.md, the feed).
 */
const SETTLED = sql`txid < pg_snapshot_xmin(pg_current_snapshot())::text::bigint`;

/**
 * A page of the caller's workspace's feed after `after` (null: from the oldest kept), of these
 * types (null: all), in feed order, `limit` events and where the page ends; one statement.
 */
export async function pageEvents(
  runner: SqlRunner,
  caller: CallingKey,
  after: FeedPosition | null,
  types: readonly EventType[] | null,
  limit: number,
): Promise<{ events: EventEnvelope[]; last: FeedPosition | null; more: boolean }> {
  const rows = await runner.rows<EventRow>(sql`
    select ${COLUMNS} from events
    where workspace_id = ${caller.workspaceId} and ${keyIsLive(caller.keyId)} and ${SETTLED}
      and (txid, seq) > (${after?.txid ?? -1}::bigint, ${after?.seq ?? -1}::bigint)
      and (${types === null ? null : types.join(',')}::text is null
        or type = any(string_to_array(${types === null ? null : types.join(',')}::text, ',')))
    order by events.txid, events.seq
    limit ${limit + 1}`);
  const page = rows.slice(0, limit);
  const end = page.at(-1);
  return {
    events: page.map(envelopeOf),
    last: end ? { txid: Number(end.txid), seq: Number(end.seq) } : null,
    more: rows.length > limit,
  };
}

/**
 * A session event's `data`, from the one session row the change's CTE returns (its columns read
 * unqualified): its ids, its status and the times that status set (the whole session is a GET away).
 */
export const sessionEventData = (): Sql =>
  sql`jsonb_build_object('sessionId', id, 'agentId', agent_id,
    'agentVersionId', agent_version_id, 'personId', person_id,
    'conversationId', conversation_id, 'type', type, 'status', status,
    'startedAt', ${isoTime(sql`started_at`)}, 'endedAt', ${isoTime(sql`ended_at`)},
    'completedAt', ${isoTime(sql`completed_at`)}, 'completedMeta', completed_meta)`;

/** An event the relay claimed: its envelope and its row, to mark once it was delivered. */
export interface ClaimedEvent {
  seq: string;
  envelope: EventEnvelope;
}

/**
 * Up to `limit` unpublished events in feed order, locked for the calling transaction (the relay's):
 * only settled transactions', so a later run never publishes an event older than one already out;
 * rows another relay holds are skipped, so two never send the same event at once.
 */
export async function claimUnpublished(tx: SqlRunner, limit: number): Promise<ClaimedEvent[]> {
  const rows = await tx.rows<EventRow>(sql`
    select ${COLUMNS} from events
    where published_at is null and ${SETTLED}
    order by events.txid, events.seq
    limit ${limit}
    for update skip locked`);
  return rows.map((row) => ({ seq: row.seq, envelope: envelopeOf(row) }));
}

/** Marks the claimed events of `seqs` delivered; the number marked. */
export async function markPublished(tx: SqlRunner, seqs: readonly string[]): Promise<number> {
  if (seqs.length === 0) return 0;
  const rows = await tx.rows(sql`
    update events set published_at = now()
    where seq = any(string_to_array(${seqs.join(',')}::text, ',')::bigint[]) and published_at is null
    returning seq`);
  return rows.length;
}

/** The retention window as an interval: events younger than it are never purged. */
export const RETENTION = `${EVENT_RETENTION_DAYS} days`;

/**
 * Deletes up to `limit` events older than the retention window that the relay has published (an
 * unpublished one is kept, however old, until it is delivered), oldest first, on the partial index
 * `events_published_age`; rows another purge holds are skipped. Returns how many it deleted. The
 * feed needs nothing more: a cursor is a position, and the next page starts at the first event
 * still kept after it.
 */
export async function purgeEvents(runner: SqlRunner, limit: number): Promise<number> {
  const [row] = await runner.rows<{ n: number }>(sql`
    with expired as (
      select seq from events
      where published_at is not null and occurred_at < now() - ${RETENTION}::interval
      order by occurred_at
      limit ${limit}
      for update skip locked
    ), purged as (
      delete from events e using expired where e.seq = expired.seq
      returning 1
    )
    select count(*)::int as n from purged`);
  return row?.n ?? 0;
}
