import sql, { type Sql } from 'sql-template-tag';
import type { WebhookEndpoint } from '#contract/schemas/webhook.ts';
import type { SqlRunner } from '../database.ts';
import { type CallingKey, keyIsLive } from './api-keys.ts';
import { eventInsert } from './events.ts';
import type { JsonText } from './json-text.ts';
import {
  allOf,
  direction,
  type ListWindow,
  limitOffset,
  type Page,
  pastCursor,
  runPage,
} from './list-window.ts';
import { isoTime } from './projections.ts';

/** An endpoint's ETag, in SQL: as an agent's, `"<id>.<updated_at in epoch ms>"`. */
export const endpointEtagSql = sql`'"' || w.id || '.' || floor(extract(epoch from w.updated_at) * 1000)::bigint || '"'`;

/**
 * The endpoint `w` as the API answers it (never its secrets), and its ETag. `row_to_json` rather
 * than `jsonb_build_object`, whose text has a space after every colon and comma (projections.ts).
 */
const ENDPOINT = sql`(select row_to_json(j) from (select
    w.id as "id", w.url as "url", w.description as "description", w.enabled_events as "enabledEvents",
    w.agent_ids as "agentIds", w.metadata as "metadata", w.status as "status",
    w.disabled_reason as "disabledReason", w.consecutive_failures as "consecutiveFailures",
    ${isoTime(sql`w.last_success_at`)} as "lastSuccessAt", ${isoTime(sql`w.first_failure_at`)} as "firstFailureAt",
    case when w.previous_secret_expires_at > now()
      then ${isoTime(sql`w.previous_secret_expires_at`)} end as "previousSecretExpiresAt",
    ${isoTime(sql`w.created_at`)} as "createdAt", ${isoTime(sql`w.updated_at`)} as "updatedAt"
  ) j)::text as item, ${endpointEtagSql} as etag`;

export interface EndpointAnswer {
  item: JsonText<WebhookEndpoint>;
  etag: string;
}

export interface NewEndpoint {
  id: string;
  url: string;
  description: string;
  enabledEvents: readonly string[];
  agentIds: readonly string[] | null;
  metadata: Record<string, unknown>;
  secretSealed: string;
  principalId: string;
}

/** `cur.etag` is one of `If-Match`'s tags; no header (undefined) matches any. */
const etagMatches = (tags: readonly string[] | undefined) => {
  const json = tags === undefined ? null : JSON.stringify(tags);
  return sql`(${json}::jsonb is null or cur.etag = any(array(select jsonb_array_elements_text(${json}::jsonb))))`;
};

/** A JSON array of strings as text[] (one parameter, whatever its length). */
const asTextArray = (values: readonly string[] | null) =>
  values === null
    ? sql`null::text[]`
    : sql`array(select jsonb_array_elements_text(${JSON.stringify(values)}::jsonb))`;

export async function createEndpoint(
  tx: SqlRunner,
  caller: CallingKey,
  e: NewEndpoint,
): Promise<EndpointAnswer> {
  const [row] = await tx.rows<EndpointAnswer>(sql`
    with w as (
      insert into webhook_endpoints (id, created_by, updated_by, workspace_id, url, description,
        enabled_events, agent_ids, metadata, secret_sealed)
      select ${e.id}, ${e.principalId}, ${e.principalId}, ${caller.workspaceId}, ${e.url}, ${e.description},
        ${asTextArray(e.enabledEvents)}, ${asTextArray(e.agentIds)}, ${JSON.stringify(e.metadata)}::jsonb,
        ${e.secretSealed}
      where ${keyIsLive(caller.keyId)}
      returning *
    )
    select ${ENDPOINT} from w`);
  if (!row) throw new Error('the endpoint was not inserted');
  return row;
}

export async function getEndpoint(
  runner: SqlRunner,
  caller: CallingKey,
  endpointId: string,
): Promise<EndpointAnswer | undefined> {
  const [row] = await runner.rows<EndpointAnswer>(sql`
    select ${ENDPOINT} from webhook_endpoints w
    where w.id = ${endpointId} and w.workspace_id = ${caller.workspaceId} and ${keyIsLive(caller.keyId)}`);
  return row;
}

/** A page of the workspace's endpoints by (created_at, id), `limit + 1` items, and their count when asked. */
export async function pageEndpoints(
  runner: SqlRunner,
  caller: CallingKey,
  window: ListWindow,
  includeTotal = false,
): Promise<Page<WebhookEndpoint>> {
  const dir = direction(window);
  const total = includeTotal
    ? sql`(select count(*)::int from webhook_endpoints where workspace_id = ${caller.workspaceId})`
    : sql`null::int`;
  return runPage<WebhookEndpoint>(
    runner,
    sql`
with page as (
  select ${ENDPOINT}, w.created_at, w.id from webhook_endpoints w
  where ${allOf([sql`w.workspace_id = ${caller.workspaceId}`, ...pastCursor(window)])}
  order by w.created_at ${dir}, w.id ${dir}
  ${limitOffset(window)}
)
select t.total, page.item
from (select ${total} as total) t
left join page on true
where ${keyIsLive(caller.keyId)}
order by page.created_at ${dir}, page.id ${dir}`,
    includeTotal,
  );
}

export interface EndpointChange {
  url?: string;
  description?: string;
  enabledEvents?: readonly string[];
  agentIds?: readonly string[] | null;
  metadata?: Record<string, unknown>;
  status?: 'enabled' | 'disabled';
  principalId: string;
}

export type ChangeOutcome =
  | { kind: 'changed'; answer: EndpointAnswer }
  | { kind: 'missing' }
  | { kind: 'stale' };

/**
 * Applies a change when `If-Match` names the current ETag (`tags`; undefined: any), in one
 * statement that locks the row. Enabling again clears the failure record, so the 5-day window
 * starts afresh.
 */
export async function updateEndpoint(
  runner: SqlRunner,
  caller: CallingKey,
  endpointId: string,
  tags: readonly string[] | undefined,
  c: EndpointChange,
): Promise<ChangeOutcome> {
  // Each column keeps its value unless the change gives one (`agentIds: null` is given: all agents).
  const has = (v: unknown) => v !== undefined;
  const json = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));
  const enabling = c.status === 'enabled';
  const [row] = await runner.rows<{
    found: boolean;
    matched: boolean;
    item: string | null;
    etag: string | null;
  }>(sql`
    with cur as (
      select w.id, ${endpointEtagSql} as etag from webhook_endpoints w
      where w.id = ${endpointId} and w.workspace_id = ${caller.workspaceId} and ${keyIsLive(caller.keyId)}
      for update
    ), ok as (
      select id from cur where ${etagMatches(tags)}
    ), w as (
      update webhook_endpoints t set
        updated_at = greatest(now(), t.updated_at + interval '1 millisecond'), updated_by = ${c.principalId}
        , url = case when ${has(c.url)}::boolean then ${c.url ?? null}::text else t.url end
        , description = case when ${has(c.description)}::boolean then ${c.description ?? null}::text else t.description end
        , enabled_events = case when ${has(c.enabledEvents)}::boolean
            then array(select jsonb_array_elements_text(${json(c.enabledEvents)}::jsonb)) else t.enabled_events end
        , agent_ids = case when not ${has(c.agentIds)}::boolean then t.agent_ids
            when ${json(c.agentIds)}::jsonb is null then null
            else array(select jsonb_array_elements_text(${json(c.agentIds)}::jsonb)) end
        , metadata = coalesce(${json(c.metadata)}::jsonb, t.metadata)
        , status = coalesce(${c.status ?? null}::webhook_endpoint_status, t.status)
        , disabled_reason = case ${c.status ?? null}::text when 'enabled' then null
            when 'disabled' then 'disabled by a client' else t.disabled_reason end
        , consecutive_failures = case when ${enabling}::boolean then 0 else t.consecutive_failures end
        , first_failure_at = case when ${enabling}::boolean then null else t.first_failure_at end
      from ok where t.id = ok.id
      returning t.*
    )
    select exists (select 1 from cur) as found, exists (select 1 from ok) as matched, x.item, x.etag
    from (select 1) one left join (select ${ENDPOINT} from w) x on true
    where ${keyIsLive(caller.keyId)}`);
  if (!row?.found) return { kind: 'missing' };
  if (!row.matched || row.item === null || row.etag === null) return { kind: 'stale' };
  return { kind: 'changed', answer: { item: row.item, etag: row.etag } };
}

/** Deletes the endpoint (its deliveries and attempts by cascade) when `If-Match` allows. */
export async function deleteEndpoint(
  runner: SqlRunner,
  caller: CallingKey,
  endpointId: string,
  tags: readonly string[] | undefined,
): Promise<'deleted' | 'missing' | 'stale'> {
  const [row] = await runner.rows<{ found: boolean; deleted: boolean }>(sql`
    with cur as (
      select w.id, ${endpointEtagSql} as etag from webhook_endpoints w
      where w.id = ${endpointId} and w.workspace_id = ${caller.workspaceId} and ${keyIsLive(caller.keyId)}
      for update
    ), gone as (
      delete from webhook_endpoints t using cur
      where t.id = cur.id and ${etagMatches(tags)}
      returning 1
    )
    select exists (select 1 from cur) as found, exists (select 1 from gone) as deleted
    where ${keyIsLive(caller.keyId)}`);
  if (!row?.found) return 'missing';
  return row.deleted ? 'deleted' : 'stale';
}

/**
 * A new secret: the current one becomes the previous, signing too until the grace period ends
 * (none: it stops at once). Moves the ETag.
 */
export async function rotateSecret(
  runner: SqlRunner,
  caller: CallingKey,
  endpointId: string,
  secretSealed: string,
  graceSeconds: number,
  principalId: string,
): Promise<EndpointAnswer | undefined> {
  const [row] = await runner.rows<EndpointAnswer>(sql`
    with w as (
      update webhook_endpoints t set
        previous_secret_sealed = case when ${graceSeconds} > 0 then t.secret_sealed end,
        previous_secret_expires_at = case when ${graceSeconds} > 0 then now() + ${graceSeconds} * interval '1 second' end,
        secret_sealed = ${secretSealed},
        updated_at = greatest(now(), t.updated_at + interval '1 millisecond'), updated_by = ${principalId}
      where t.id = ${endpointId} and t.workspace_id = ${caller.workspaceId} and ${keyIsLive(caller.keyId)}
      returning t.*
    )
    select ${ENDPOINT} from w where ${keyIsLive(caller.keyId)}`);
  return row;
}

/**
 * Stops an endpoint's deliveries for good reason (it answered 410, or failed for days), emitting
 * `webhook_endpoint.disabled` in the same statement, only when it was enabled until now.
 */
export const autoDisable = (endpointId: string, reason: string): Sql => sql`
  with w as (
    update webhook_endpoints t set status = 'auto_disabled', disabled_reason = ${reason},
      updated_at = greatest(now(), t.updated_at + interval '1 millisecond')
    where t.id = ${endpointId} and t.status = 'enabled'
    returning t.id, t.workspace_id, t.url, t.disabled_reason
  ), ev as (
    ${eventInsert(
      'webhook_endpoint.disabled',
      sql`select workspace_id, jsonb_build_object('endpointId', id, 'url', url, 'reason', disabled_reason) as data from w`,
    )}
  )
  select count(*)::int as n from ev`;
