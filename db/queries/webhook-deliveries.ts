import sql, { raw, type Sql } from 'sql-template-tag';
import type { eventTypes } from '#contract/enums.ts';
import type { WebhookDelivery, WebhookDeliveryDetail } from '#contract/schemas/webhook.ts';
import type { SqlRunner } from '../database.ts';
import { type CallingKey, keyIsLive } from './api-keys.ts';
import type { JsonText } from './json-text.ts';
import type { ListWindow } from './list-window.ts';
import { isoTime } from './projections.ts';

/**
 * A fresh delivery id made in SQL (a fan-out inserts many rows in one statement): a letter and 23
 * hex digits of a random UUID, so the contract's cuid2 shape (lower-case, letter first) holds.
 */
const newId = raw(`'w' || substr(replace(gen_random_uuid()::text, '-', ''), 1, 23)`);

/** The body every attempt of an event's delivery sends: `{type, timestamp, data}` (Standard Webhooks). */
const payloadOf = (e: string) =>
  sql`jsonb_build_object('type', ${raw(e)}.type, 'timestamp', ${isoTime(sql`${raw(e)}.occurred_at`)}, 'data', ${raw(e)}.data)::text`;

/** The endpoint `w` takes the event `e`: of its types (or `*`), and of its agents when it names some. */
const wants = sql`('*' = any(w.enabled_events) or e.type = any(w.enabled_events))
  and (w.agent_ids is null or e.data->>'agentId' = any(w.agent_ids))`;

/**
 * One delivery per claimed event and enabled endpoint of its workspace that takes it, in the
 * relay's claiming transaction: the event and its deliveries are queued together. A second claim
 * of the same event (the bus refused it) inserts nothing twice. Returns how many it queued.
 */
export async function fanOut(tx: SqlRunner, seqs: readonly string[]): Promise<number> {
  if (seqs.length === 0) return 0;
  const [row] = await tx.rows<{ n: number }>(sql`
    with queued as (
      insert into webhook_deliveries (id, workspace_id, endpoint_id, event_id, event_seq, event_type, kind,
        payload, next_attempt_at)
      select ${newId}, e.workspace_id, w.id, e.id, e.seq, e.type, 'event', ${payloadOf('e')}, now()
      from events e
      join webhook_endpoints w on w.workspace_id = e.workspace_id and w.status = 'enabled' and ${wants}
      where e.seq = any(string_to_array(${seqs.join(',')}::text, ',')::bigint[])
      order by e.txid, e.seq
      on conflict (endpoint_id, event_id) where kind = 'event' do nothing
      returning 1
    )
    select count(*)::int as n from queued`);
  return row?.n ?? 0;
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
 * worker is claiming are skipped.
 */
export async function claimDue(
  runner: SqlRunner,
  limit: number,
  perEndpoint: number,
  leaseMs: number,
): Promise<ClaimedDelivery[]> {
  return runner.rows<ClaimedDelivery>(sql`
    with busy as (
      select endpoint_id, count(*) as n from webhook_deliveries
      where status in ('pending', 'failed') and locked_until > now()
      group by endpoint_id
    ), due as (
      select d.id, d.endpoint_id, d.next_attempt_at, d.event_seq,
        row_number() over (partition by d.endpoint_id order by d.next_attempt_at, d.event_seq nulls last, d.id) as rn
      from webhook_deliveries d
      join webhook_endpoints w on w.id = d.endpoint_id and w.status = 'enabled'
      where d.status in ('pending', 'failed') and d.next_attempt_at <= now()
        and (d.locked_until is null or d.locked_until <= now())
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
  const next =
    a.outcome.kind === 'retry' ? sql`now() + ${a.outcome.retryInMs} * interval '1 millisecond'` : raw('null');
  const [row] = await runner.rows<{ failingSinceMs: string | null }>(sql`
    with att as (
      insert into webhook_attempts (delivery_id, status_code, duration_ms, response, error)
      values (${delivery.id}, ${a.statusCode}, ${a.durationMs}, ${a.response}, ${a.error})
      returning 1
    ), del as (
      update webhook_deliveries set status = ${status}::webhook_delivery_status, next_attempt_at = ${next},
        locked_until = null, updated_at = now()
      where id = ${delivery.id}
      returning endpoint_id
    ), ep as (
      update webhook_endpoints w set
        consecutive_failures = ${ok ? raw('0') : raw('w.consecutive_failures + 1')},
        last_success_at = ${ok ? raw('now()') : raw('w.last_success_at')},
        first_failure_at = ${ok ? raw('null') : raw('coalesce(w.first_failure_at, now())')}
      from del where w.id = del.endpoint_id
      returning w.first_failure_at
    )
    select (floor(extract(epoch from first_failure_at) * 1000))::bigint::text as "failingSinceMs"
    from ep, (select count(*) from att) a`);
  return { failingSinceMs: row?.failingSinceMs == null ? null : Number(row.failingSinceMs) };
}

/** The database's clock in epoch ms (the worker's schedule is the database's time, as its leases). */
export async function databaseNow(runner: SqlRunner): Promise<number> {
  const [row] = await runner.rows<{ ms: string }>(
    sql`select floor(extract(epoch from now()) * 1000)::bigint::text as ms`,
  );
  return Number(row?.ms);
}

const DELIVERY = (d: string) => {
  const c = (col: string) => raw(`${d}.${col}`);
  return sql`jsonb_build_object('id', ${c('id')}, 'endpointId', ${c('endpoint_id')}, 'eventId', ${c('event_id')},
    'eventType', ${c('event_type')}, 'kind', ${c('kind')}, 'status', ${c('status')},
    'attemptCount', ${c('attempt_count')}, 'nextAttemptAt', ${isoTime(c('next_attempt_at'))},
    'createdAt', ${isoTime(c('created_at'))}, 'updatedAt', ${isoTime(c('updated_at'))})`;
};

/** The endpoint, when the caller's workspace holds it (the first statement: it carries the key's guard). */
const endpointOf = (caller: CallingKey, endpointId: string): Sql => sql`
  select w.* from webhook_endpoints w
  where w.id = ${endpointId} and w.workspace_id = ${caller.workspaceId} and ${keyIsLive(caller.keyId)}`;

export type EventType = (typeof eventTypes)[number];

/** A test delivery of `eventType` (its data says `test: true`), queued now; undefined: no such endpoint. */
export async function queueTest(
  runner: SqlRunner,
  caller: CallingKey,
  endpointId: string,
  eventType: EventType,
): Promise<JsonText<WebhookDelivery> | undefined> {
  const [row] = await runner.rows<{ item: JsonText<WebhookDelivery> }>(sql`
    with w as (${endpointOf(caller, endpointId)}), d as (
      insert into webhook_deliveries (id, workspace_id, endpoint_id, event_id, event_type, kind, payload, next_attempt_at)
      select ${newId}, w.workspace_id, w.id, gen_random_uuid(), ${eventType}, 'test',
        jsonb_build_object('type', ${eventType}::text, 'timestamp', ${isoTime(raw('now()'))},
          'data', jsonb_build_object('test', true))::text, now()
      from w
      returning *
    )
    select ${DELIVERY('d')}::text as item from d where ${keyIsLive(caller.keyId)}`);
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
      where id = ${deliveryId} and workspace_id = ${caller.workspaceId} and ${keyIsLive(caller.keyId)}
    ), d as (
      insert into webhook_deliveries (id, workspace_id, endpoint_id, event_id, event_seq, event_type, kind, payload, next_attempt_at)
      select ${newId}, o.workspace_id, o.endpoint_id, o.event_id, o.event_seq, o.event_type, 'redelivery', o.payload, now()
      from o
      returning *
    )
    select ${DELIVERY('d')}::text as item from d where ${keyIsLive(caller.keyId)}`);
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
      select ${newId}, e.workspace_id, w.id, e.id, e.seq, e.type, 'event', ${payloadOf('e')}, now()
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
): Promise<JsonText<WebhookDelivery>[] | undefined> {
  const desc = window.order !== 'asc';
  const dir = raw(desc ? 'desc' : 'asc');
  const conditions = [
    f.status
      ? sql`and d.status::text = any(array(select jsonb_array_elements_text(${JSON.stringify(f.status)}::jsonb)))`
      : raw(''),
    f.eventType
      ? sql`and d.event_type = any(array(select jsonb_array_elements_text(${JSON.stringify(f.eventType)}::jsonb)))`
      : raw(''),
    f.since ? sql`and d.created_at >= ${f.since}::timestamptz` : raw(''),
    window.after
      ? sql`and (d.created_at, d.id) ${raw(desc ? '<' : '>')} (${window.after.createdAt}::timestamptz, ${window.after.id})`
      : raw(''),
  ];
  const rows = await runner.rows<{ found: boolean; item: JsonText<WebhookDelivery> | null }>(sql`
    with w as (${endpointOf(caller, endpointId)}), page as (
      select d.* from webhook_deliveries d, w
      where d.endpoint_id = w.id ${conditions[0]} ${conditions[1]} ${conditions[2]} ${conditions[3]}
      order by d.created_at ${dir}, d.id ${dir}
      limit ${window.limit + 1} offset ${window.after ? 0 : window.offset}
    )
    select exists (select 1 from w) as found, x.item
    from (select 1) one left join (select ${DELIVERY('page')}::text as item, page.created_at, page.id from page) x on true
    where ${keyIsLive(caller.keyId)}
    order by x.created_at ${dir}, x.id ${dir}`);
  if (!rows[0]?.found) return undefined;
  return rows.flatMap((r) => (r.item === null ? [] : [r.item]));
}

/** One delivery of the caller's workspace with its attempts, oldest first. */
export async function getDelivery(
  runner: SqlRunner,
  caller: CallingKey,
  deliveryId: string,
): Promise<JsonText<WebhookDeliveryDetail> | undefined> {
  const [row] = await runner.rows<{ item: JsonText<WebhookDeliveryDetail> }>(sql`
    select (${DELIVERY('d')} || jsonb_build_object('attempts', coalesce((
      select jsonb_agg(jsonb_build_object('at', ${isoTime(raw('a.at'))}, 'statusCode', a.status_code,
        'durationMs', a.duration_ms, 'response', a.response, 'error', a.error) order by a.id)
      from webhook_attempts a where a.delivery_id = d.id), '[]'::jsonb)))::text as item
    from webhook_deliveries d
    where d.id = ${deliveryId} and d.workspace_id = ${caller.workspaceId} and ${keyIsLive(caller.keyId)}`);
  return row?.item;
}
