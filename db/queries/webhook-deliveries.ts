import sql, { empty, type Sql } from 'sql-template-tag';
import type { eventTypes } from '#contract/enums.ts';
import type { WebhookDelivery, WebhookDeliveryDetail } from '#contract/schemas/webhook.ts';
import type { SqlRunner } from '../database.ts';
import { type CallingKey, keyIsLive } from './api-keys.ts';
import type { JsonText } from './json-text.ts';
import {
  allOf,
  direction,
  isIn,
  type ListWindow,
  limitOffset,
  type Page,
  pastCursor,
} from './list-window.ts';
import { isoTime } from './projections.ts';

/**
 * A fresh delivery id made in SQL (a fan-out inserts many rows in one statement): a letter and 23
 * hex digits of a random UUID, so the contract's cuid2 shape (lower-case, letter first) holds.
 */
const newId = sql`'w' || substr(replace(gen_random_uuid()::text, '-', ''), 1, 23)`;

/** The body every attempt of the event `e`'s delivery sends: `{type, timestamp, data}` (Standard Webhooks). */
const eventPayload = () =>
  sql`jsonb_build_object('type', e.type, 'timestamp', ${isoTime(sql`e.occurred_at`)}, 'data', e.data)::text`;

/** The endpoint `w` takes the event `e`: of its types (or `*`), and of its agents when it names some. */
const wants = sql`('*' = any(w.enabled_events) or e.type = any(w.enabled_events))
  and (w.agent_ids is null or e.data->>'agentId' = any(w.agent_ids))`;

/**
 * One delivery per claimed event and enabled endpoint of its workspace that takes it, in the
 * relay's claiming transaction: the event and its deliveries are queued together. A second claim
 * of the same event (the bus refused it) inserts nothing twice. Returns the new deliveries' ids
 * (what the relay hands the delivery queue once it committed).
 */
export async function fanOut(tx: SqlRunner, seqs: readonly string[]): Promise<string[]> {
  if (seqs.length === 0) return [];
  const rows = await tx.rows<{ id: string }>(sql`
    with queued as (
      insert into webhook_deliveries (id, workspace_id, endpoint_id, event_id, event_seq, event_type, kind,
        payload, next_attempt_at)
      select ${newId}, e.workspace_id, w.id, e.id, e.seq, e.type, 'event', ${eventPayload()}, now()
      from events e
      join webhook_endpoints w on w.workspace_id = e.workspace_id and w.status = 'enabled' and ${wants}
      where e.seq = any(string_to_array(${seqs.join(',')}::text, ',')::bigint[])
      order by e.txid, e.seq
      on conflict (endpoint_id, event_id) where kind = 'event' do nothing
      returning id
    )
    select id from queued`);
  return rows.map((r) => r.id);
}

/** A delivery the worker claimed: what to send where, and the secrets to sign with (sealed). */
export interface ClaimedDelivery {
  id: string;
  endpointId: string;
  eventId: string;
  payload: string;
  /** Including this one. */
  attemptCount: number;
  url: string;
  secretSealed: string;
  /** While a rotation's grace runs. */
  previousSecretSealed: string | null;
}

/**
 * Up to `limit` due deliveries of enabled endpoints, oldest due first (a recovery's in feed
 * order), at most `perEndpoint` in flight per endpoint (counting those other workers hold), leased
 * for `leaseMs`: a worker that dies leaves them due again when the lease ends. Rows another
 * worker is claiming are skipped. Each endpoint's candidates are read from its own index up to
 * `perEndpoint` (the queue's messages name theirs by id), never the whole backlog: a claim's cost
 * follows the endpoints, not the deliveries waiting.
 */
export async function claimDue(
  runner: SqlRunner,
  limit: number,
  perEndpoint: number,
  leaseMs: number,
  /** Only these deliveries (the queue's messages); default: any due. */
  ids?: readonly string[],
): Promise<ClaimedDelivery[]> {
  const due = sql`d.status in ('pending', 'failed') and d.next_attempt_at <= now()
    and (d.locked_until is null or d.locked_until <= now())`;
  const candidates = ids
    ? sql`select d.id, d.endpoint_id, d.next_attempt_at, d.event_seq
      from webhook_deliveries d
      join webhook_endpoints w on w.id = d.endpoint_id and w.status = 'enabled'
      where d.id = any(string_to_array(${ids.join(',')}::text, ',')) and ${due}`
    : sql`select d.id, d.endpoint_id, d.next_attempt_at, d.event_seq
      from webhook_endpoints w
      cross join lateral (
        select d.id, d.endpoint_id, d.next_attempt_at, d.event_seq from webhook_deliveries d
        where d.endpoint_id = w.id and ${due}
        order by d.next_attempt_at, d.event_seq nulls last, d.id
        limit ${perEndpoint}
      ) d
      where w.status = 'enabled'`;
  return runner.rows<ClaimedDelivery>(sql`
    with busy as (
      select endpoint_id, count(*) as n from webhook_deliveries
      where status in ('pending', 'failed') and locked_until is not null and locked_until > now()
      group by endpoint_id
    ), due as (
      select c.id, c.endpoint_id, c.next_attempt_at, c.event_seq,
        row_number() over (partition by c.endpoint_id order by c.next_attempt_at, c.event_seq nulls last, c.id) as rn
      from (${candidates}) c
    ), picked as (
      select d.id from webhook_deliveries d
      where d.id in (
        select due.id from due left join busy on busy.endpoint_id = due.endpoint_id
        where due.rn + coalesce(busy.n, 0) <= ${perEndpoint}
        order by due.next_attempt_at, due.event_seq nulls last, due.id
        limit ${limit}
      )
      for update skip locked
    )
    update webhook_deliveries d set locked_until = now() + ${leaseMs} * interval '1 millisecond',
      attempt_count = d.attempt_count + 1, updated_at = now()
    from picked, webhook_endpoints w
    where d.id = picked.id and w.id = d.endpoint_id
    returning d.id, d.endpoint_id as "endpointId", d.event_id::text as "eventId", d.payload,
      d.attempt_count as "attemptCount", w.url, w.secret_sealed as "secretSealed",
      case when w.previous_secret_expires_at > now() then w.previous_secret_sealed end as "previousSecretSealed"`);
}

/** What one attempt came to. */
export interface AttemptRecord {
  statusCode: number | null;
  durationMs: number;
  response: string | null;
  error: string | null;
  /** The delivery's state after it: a retry in `retryInMs`, done, or no retry left. */
  outcome: { kind: 'succeeded' } | { kind: 'retry'; retryInMs: number } | { kind: 'dead' };
}

/**
 * Records an attempt, moves the delivery on and the endpoint's health, in one statement; returns
 * the endpoint's first failure of the running streak (null after a success) so the worker can
 * tell when it has failed long enough to be disabled.
 */
export async function recordAttempt(
  runner: SqlRunner,
  delivery: Pick<ClaimedDelivery, 'id' | 'endpointId'>,
  a: AttemptRecord,
): Promise<{ failingSinceMs: number | null }> {
  const ok = a.outcome.kind === 'succeeded';
  const status = a.outcome.kind === 'retry' ? 'failed' : a.outcome.kind;
  const retryInMs = a.outcome.kind === 'retry' ? a.outcome.retryInMs : null;
  const [row] = await runner.rows<{ failingSinceMs: string | null }>(sql`
    with att as (
      insert into webhook_attempts (delivery_id, status_code, duration_ms, response, error)
      values (${delivery.id}, ${a.statusCode}, ${a.durationMs}, ${a.response}, ${a.error})
      returning 1
    ), del as (
      update webhook_deliveries set status = ${status}::webhook_delivery_status, next_attempt_at = now() + ${retryInMs}::float8 * interval '1 millisecond',
        locked_until = null, updated_at = now()
      where id = ${delivery.id}
      returning endpoint_id
    ), ep as (
      update webhook_endpoints w set
        consecutive_failures = case when ${ok}::boolean then 0 else w.consecutive_failures + 1 end,
        last_success_at = case when ${ok}::boolean then now() else w.last_success_at end,
        first_failure_at = case when ${ok}::boolean then null else coalesce(w.first_failure_at, now()) end
      from del where w.id = del.endpoint_id
      returning w.first_failure_at
    )
    select (floor(extract(epoch from first_failure_at) * 1000))::bigint::text as "failingSinceMs"
    from ep, (select count(*) from att) a`);
  return { failingSinceMs: row?.failingSinceMs == null ? null : Number(row.failingSinceMs) };
}

/**
 * Of `ids`, the deliveries still due and held by no worker: what a queue message could not claim
 * (its endpoint had its fill in flight) and must come back for.
 */
export async function stillDue(runner: SqlRunner, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await runner.rows<{ id: string }>(sql`
    select d.id from webhook_deliveries d
    join webhook_endpoints w on w.id = d.endpoint_id and w.status = 'enabled'
    where d.id = any(string_to_array(${ids.join(',')}::text, ',')) and d.status in ('pending', 'failed')
      and d.next_attempt_at <= now() and (d.locked_until is null or d.locked_until <= now())`);
  return rows.map((r) => r.id);
}

/** SQS holds a message back 15 minutes at most: a longer retry wait is the requeue's to carry. */
export const QUEUE_MAX_DELAY_SECONDS = 900;

/**
 * What the scheduled requeue hands the delivery queue: deliveries of enabled endpoints coming due
 * within `aheadMs` (each with the delay left) that no message carries. A message carries a fresh
 * fan-out (the relay's) and a retry whose wait SQS could delay (the delivery function's), until it
 * is `graceMs` overdue: then its message was lost, or never sent, and it goes again. A lease run
 * out (a worker died) counts as overdue too. Oldest due first, at most `limit`.
 */
export async function dueForQueue(
  runner: SqlRunner,
  limit: number,
  aheadMs: number,
  graceMs: number,
): Promise<{ id: string; delaySeconds: number }[]> {
  return runner.rows<{ id: string; delaySeconds: number }>(sql`
    select d.id,
      greatest(0, ceil(extract(epoch from d.next_attempt_at - now())))::int as "delaySeconds"
    from webhook_deliveries d
    join webhook_endpoints w on w.id = d.endpoint_id and w.status = 'enabled'
    where d.status in ('pending', 'failed')
      and (d.locked_until is null or d.locked_until <= now())
      and d.next_attempt_at <= now() + ${aheadMs} * interval '1 millisecond'
      and (
        d.next_attempt_at <= now() - ${graceMs} * interval '1 millisecond'
        or d.locked_until is not null
        or d.next_attempt_at - d.updated_at > ${QUEUE_MAX_DELAY_SECONDS} * interval '1 second'
        or (d.kind <> 'event' and d.attempt_count = 0)
      )
    order by d.next_attempt_at, d.id
    limit ${limit}`);
}

/** The database's clock in epoch ms (the worker's schedule is the database's time, as its leases). */
export async function databaseNow(runner: SqlRunner): Promise<number> {
  const [row] = await runner.rows<{ ms: string }>(
    sql`select floor(extract(epoch from now()) * 1000)::bigint::text as ms`,
  );
  return Number(row?.ms);
}

/**
 * The delivery `d` as the API answers it, compact (`row_to_json`, as projections.ts explains);
 * `attempts`: the detail's list of them, as JSON.
 */
const deliveryJson = (attempts?: Sql) => sql`(select row_to_json(j) from (select
    d.id as "id", d.endpoint_id as "endpointId", d.event_id as "eventId", d.event_type as "eventType",
    d.kind as "kind", d.status as "status", d.attempt_count as "attemptCount",
    ${isoTime(sql`d.next_attempt_at`)} as "nextAttemptAt", ${isoTime(sql`d.created_at`)} as "createdAt",
    ${isoTime(sql`d.updated_at`)} as "updatedAt"${attempts ? sql`, ${attempts} as "attempts"` : empty}
  ) j)`;

/** The endpoint, when the caller's workspace holds it (the first statement: it carries the key's guard). */
const endpointOf = (caller: CallingKey, endpointId: string): Sql => sql`
  select w.* from webhook_endpoints w
  where w.id = ${endpointId} and w.workspace_id = ${caller.workspaceId} and ${keyIsLive(caller.keyId)}`;

export type EventType = (typeof eventTypes)[number];

/** A test delivery of `eventType` carrying `data` (the type's example), queued now; undefined: no such endpoint. */
export async function queueTest(
  runner: SqlRunner,
  caller: CallingKey,
  endpointId: string,
  eventType: EventType,
  data: object,
): Promise<JsonText<WebhookDelivery> | undefined> {
  const [row] = await runner.rows<{ item: JsonText<WebhookDelivery> }>(sql`
    with w as (${endpointOf(caller, endpointId)}), d as (
      insert into webhook_deliveries (id, workspace_id, endpoint_id, event_id, event_type, kind, payload, next_attempt_at)
      select ${newId}, w.workspace_id, w.id, gen_random_uuid(), ${eventType}, 'test',
        jsonb_build_object('type', ${eventType}::text, 'timestamp', ${isoTime(sql`now()`)},
          'data', ${JSON.stringify(data)}::jsonb)::text, now()
      from w
      returning *
    )
    select ${deliveryJson()}::text as item from d where ${keyIsLive(caller.keyId)}`);
  return row?.item;
}

/** A new delivery of the same event, body and `webhook-id`, queued now; undefined: no such delivery. */
export async function queueRedelivery(
  runner: SqlRunner,
  caller: CallingKey,
  deliveryId: string,
): Promise<JsonText<WebhookDelivery> | undefined> {
  const [row] = await runner.rows<{ item: JsonText<WebhookDelivery> }>(sql`
    with o as (
      select * from webhook_deliveries
      where id = ${deliveryId} and workspace_id = ${caller.workspaceId}
    ), d as (
      insert into webhook_deliveries (id, workspace_id, endpoint_id, event_id, event_seq, event_type, kind, payload, next_attempt_at)
      select ${newId}, o.workspace_id, o.endpoint_id, o.event_id, o.event_seq, o.event_type, 'redelivery', o.payload, now()
      from o
      returning *
    )
    select ${deliveryJson()}::text as item from d where ${keyIsLive(caller.keyId)}`);
  return row?.item;
}

/**
 * Queues every event of the window the endpoint takes that has no successful delivery to it yet:
 * a new delivery where none exists, and a failed or dead one due again now (never a second row for
 * one event, so a recovery and the retries cannot both succeed). Due now, in feed order. Returns
 * how many, or undefined when the workspace holds no such endpoint.
 */
export async function recoverWindow(
  runner: SqlRunner,
  caller: CallingKey,
  endpointId: string,
  since: string,
  until: string | undefined,
): Promise<number | undefined> {
  const [row] = await runner.rows<{ found: boolean; n: number }>(sql`
    with w as (${endpointOf(caller, endpointId)}), queued as (
      insert into webhook_deliveries (id, workspace_id, endpoint_id, event_id, event_seq, event_type, kind,
        payload, next_attempt_at)
      select ${newId}, e.workspace_id, w.id, e.id, e.seq, e.type, 'event', ${eventPayload()}, now()
      from w join events e on e.workspace_id = w.workspace_id and ${wants}
      where e.occurred_at >= ${since}::timestamptz
        and (${until ?? null}::timestamptz is null or e.occurred_at < ${until ?? null}::timestamptz)
        and not exists (
          select 1 from webhook_deliveries s
          where s.endpoint_id = w.id and s.event_id = e.id and s.status = 'succeeded')
      order by e.txid, e.seq
      on conflict (endpoint_id, event_id) where kind = 'event' do update
        set status = 'pending', next_attempt_at = now(), updated_at = now()
        where webhook_deliveries.status in ('failed', 'dead')
      returning 1
    )
    select exists (select 1 from w) as found, (select count(*)::int from queued) as n
    where ${keyIsLive(caller.keyId)}`);
  return row?.found ? row.n : undefined;
}

export interface DeliveryFilters {
  status?: string[];
  eventType?: string[];
  since?: string;
}

/** A page of an endpoint's deliveries, `limit + 1` items; undefined when no such endpoint. */
export async function pageDeliveries(
  runner: SqlRunner,
  caller: CallingKey,
  endpointId: string,
  f: DeliveryFilters,
  window: ListWindow,
  includeTotal = false,
): Promise<Page<WebhookDelivery> | undefined> {
  const dir = direction(window);
  const matching = [
    sql`endpoint_id in (select id from w)`,
    f.status && isIn(sql`status::text`, f.status),
    f.eventType && isIn(sql`event_type`, f.eventType),
    f.since ? sql`created_at >= ${f.since}::timestamptz` : undefined,
  ].filter((c): c is Sql => c !== undefined);
  const total = includeTotal
    ? sql`(select count(*)::int from webhook_deliveries where ${allOf(matching)})`
    : sql`null::int`;
  const rows = await runner.rows<{
    found: boolean;
    total: number | null;
    item: JsonText<WebhookDelivery> | null;
  }>(sql`
    with w as (${endpointOf(caller, endpointId)}), page as (
      select * from webhook_deliveries
      where ${allOf([...matching, ...pastCursor(window)])}
      order by created_at ${dir}, id ${dir}
      ${limitOffset(window)}
    )
    select exists (select 1 from w) as found, ${total} as total, x.item
    from (select 1) one left join (select ${deliveryJson()}::text as item, d.created_at, d.id from page d) x on true
    where ${keyIsLive(caller.keyId)}
    order by x.created_at ${dir}, x.id ${dir}`);
  if (!rows[0]?.found) return undefined;
  const items = rows.flatMap((r) => (r.item === null ? [] : [r.item]));
  return includeTotal ? { items, total: rows[0]?.total ?? 0 } : { items };
}

/** One delivery of the caller's workspace with its attempts, oldest first. */
export async function getDelivery(
  runner: SqlRunner,
  caller: CallingKey,
  deliveryId: string,
): Promise<JsonText<WebhookDeliveryDetail> | undefined> {
  // The attempts joined by hand: json_agg would put a space after each comma.
  const [row] = await runner.rows<{ item: JsonText<WebhookDeliveryDetail> }>(sql`
    select ${deliveryJson(sql`(select ('[' || coalesce(string_agg((select row_to_json(j)::text from (select
        ${isoTime(sql`a.at`)} as "at", a.status_code as "statusCode", a.duration_ms as "durationMs",
        a.response as "response", a.error as "error") j), ',' order by a.id), '') || ']')::json
      from webhook_attempts a where a.delivery_id = d.id)`)}::text as item
    from webhook_deliveries d
    where d.id = ${deliveryId} and d.workspace_id = ${caller.workspaceId} and ${keyIsLive(caller.keyId)}`);
  return row?.item;
}
