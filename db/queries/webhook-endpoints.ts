import sql, { raw, type Sql } from 'sql-template-tag';
import type { WebhookEndpoint } from '#contract/schemas/webhook.ts';
import type { SqlRunner } from '../database.ts';
import { type CallingKey, keyIsLive } from './api-keys.ts';
import { eventInsert } from './events.ts';
import type { JsonText } from './json-text.ts';
import type { ListWindow } from './list-window.ts';
import { isoTime } from './projections.ts';

/** An endpoint's ETag, in SQL: as an agent's, `"<id>.<updated_at in epoch ms>"`. */
export const endpointEtagSql = sql`'"' || w.id || '.' || floor(extract(epoch from w.updated_at) * 1000)::bigint || '"'`;

/** The endpoint `w` as the API answers it (never its secrets), and its ETag. */
const ENDPOINT = sql`jsonb_build_object(
    'id', w.id, 'url', w.url, 'description', w.description, 'enabledEvents', to_jsonb(w.enabled_events),
    'agentIds', to_jsonb(w.agent_ids), 'metadata', w.metadata, 'status', w.status,
    'disabledReason', w.disabled_reason, 'consecutiveFailures', w.consecutive_failures,
    'lastSuccessAt', ${isoTime(sql`w.last_success_at`)}, 'firstFailureAt', ${isoTime(sql`w.first_failure_at`)},
    'previousSecretExpiresAt', case when w.previous_secret_expires_at > now()
      then ${isoTime(sql`w.previous_secret_expires_at`)} end,
    'createdAt', ${isoTime(sql`w.created_at`)}, 'updatedAt', ${isoTime(sql`w.updated_at`)}
  )::text as item, ${endpointEtagSql} as etag`;

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

/** A page of the workspace's endpoints by (created_at, id), `limit + 1` items. */
export async function pageEndpoints(
  runner: SqlRunner,
  caller: CallingKey,
  window: ListWindow,
): Promise<JsonText<WebhookEndpoint>[]> {
  const desc = window.order !== 'asc';
  const after = window.after
    ? sql`and (w.created_at, w.id) ${raw(desc ? '<' : '>')} (${window.after.createdAt}::timestamptz, ${window.after.id})`
    : raw('');
  const dir = raw(desc ? 'desc' : 'asc');
  const rows = await runner.rows<{ item: JsonText<WebhookEndpoint> }>(sql`
    select ${ENDPOINT} from webhook_endpoints w
    where w.workspace_id = ${caller.workspaceId} and ${keyIsLive(caller.keyId)} ${after}
    order by w.created_at ${dir}, w.id ${dir}
    limit ${window.limit + 1} offset ${window.after ? 0 : window.offset}`);
  return rows.map((r) => r.item);
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
  const set = (column: string, value: Sql | undefined) =>
    value === undefined ? raw('') : sql`, ${raw(column)} = ${value}`;
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
      select id from cur where ${tags === undefined ? raw('true') : sql`cur.etag = any(array(select jsonb_array_elements_text(${JSON.stringify(tags)}::jsonb)))`}
    ), w as (
      update webhook_endpoints t set
        updated_at = greatest(now(), t.updated_at + interval '1 millisecond'), updated_by = ${c.principalId}
        ${set('url', c.url === undefined ? undefined : sql`${c.url}`)}
        ${set('description', c.description === undefined ? undefined : sql`${c.description}`)}
        ${set('enabled_events', c.enabledEvents === undefined ? undefined : asTextArray(c.enabledEvents))}
        ${set('agent_ids', c.agentIds === undefined ? undefined : asTextArray(c.agentIds))}
        ${set('metadata', c.metadata === undefined ? undefined : sql`${JSON.stringify(c.metadata)}::jsonb`)}
        ${set('status', c.status === undefined ? undefined : sql`${c.status}::webhook_endpoint_status`)}
        ${set('disabled_reason', c.status === undefined ? undefined : c.status === 'enabled' ? sql`null` : sql`${'disabled by a client'}`)}
        ${enabling ? raw(', consecutive_failures = 0, first_failure_at = null') : raw('')}
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
      where t.id = cur.id and ${tags === undefined ? raw('true') : sql`cur.etag = any(array(select jsonb_array_elements_text(${JSON.stringify(tags)}::jsonb)))`}
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
