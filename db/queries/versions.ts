import sql, { type Sql } from 'sql-template-tag';
import type { AgentVersion, VERSION_CONFIGURATION_FIELDS } from '#contract/schemas/agent.ts';
import type { SqlRunner } from '../database.ts';
import { type CallingKey, keyIsLive } from './api-keys.ts';
import type { JsonText } from './json-text.ts';
import { allOf, direction, type ListWindow, limitOffset, type Page, readsOffIndex } from './list-window.ts';
import { configurationJson, versionJson } from './projections.ts';

/** The page's versions (`readsOffIndex`), by number, as sessions.ts reads its page. */
function pageRows(where: Sql, window: ListWindow): Sql {
  const bounds = sql`order by version ${direction(window)} ${limitOffset(window)}`;
  if (readsOffIndex(window)) return sql`select * from agent_versions where ${where} ${bounds}`;
  return sql`select v.*
  from (select id, version from agent_versions where ${where} ${bounds}) page
  cross join lateral (select * from agent_versions where agent_versions.id = page.id offset 0) v`;
}

/**
 * One page of an agent's versions as JSON text, `limit + 1` items, with
 * `includeTotal` how many it has; `undefined` when the workspace holds no such agent (`found`, from
 * the same statement, so an empty page of an unknown agent is a 404). The page is paged on the
 * `(agent_id, version)` index, ordered by number, not `(created_at, id)`: two versions may share a
 * millisecond, never a number. A cursor's position names its last version by id; the page starts
 * past that version's number (a cursor naming no version of this agent starts nowhere: empty page).
 */
export async function pageVersionsJson(
  runner: SqlRunner,
  caller: CallingKey,
  agentId: string,
  window: ListWindow,
  includeTotal = false,
): Promise<Page<AgentVersion> | undefined> {
  const { workspaceId } = caller;
  const { after } = window;
  const dir = direction(window);
  const conditions = [sql`agent_id = ${agentId}`, sql`workspace_id = ${workspaceId}`];
  if (after)
    conditions.push(
      window.order === 'asc'
        ? sql`version > (select p.version from agent_versions p where p.id = ${after.id} and p.agent_id = ${agentId})`
        : sql`version < (select p.version from agent_versions p where p.id = ${after.id} and p.agent_id = ${agentId})`,
    );
  const total = includeTotal
    ? sql`(select count(*)::int from agent_versions where agent_id = ${agentId} and workspace_id = ${workspaceId})`
    : sql`null::int`;
  const rows = await runner.rows<{
    item: JsonText<AgentVersion> | null;
    total: number | null;
    found: boolean;
  }>(sql`
with page as (
  ${pageRows(allOf(conditions), window)}
)
select t.total, t.found, case when v.id is null then null else ${versionJson()} end::text as item
from (
  select ${total} as total,
    exists (select 1 from agents a where a.id = ${agentId} and a.workspace_id = ${workspaceId}) as found
) t
left join page v on true
where ${keyIsLive(caller.keyId)}
order by v.version ${dir}`);
  if (!rows[0]?.found) return undefined;
  const items = rows.flatMap((r) => (r.item === null ? [] : [r.item]));
  return includeTotal ? { items, total: rows[0].total ?? 0 } : { items };
}

/** Why a version read found nothing: the agent is not the workspace's, or the version not the agent's. */
export type Missing = 'agent' | 'version';

/**
 * One version of an agent as JSON text, as the agent embeds its latest (`item`, null when the agent
 * holds no such version), or which of the two the workspace does not hold (`found`: the agent).
 */
export async function getVersionJson(
  runner: SqlRunner,
  caller: CallingKey,
  agentId: string,
  versionId: string,
): Promise<{ item: JsonText<AgentVersion> } | { missing: Missing }> {
  const ws = caller.workspaceId;
  const [row] = await runner.rows<{ found: boolean; item: JsonText<AgentVersion> | null }>(sql`
select exists (select 1 from agents a where a.id = ${agentId} and a.workspace_id = ${ws}) as found,
  (select ${versionJson()}
    from agent_versions v
    where v.id = ${versionId} and v.agent_id = ${agentId} and v.workspace_id = ${ws})::text as item
where ${keyIsLive(caller.keyId)}`);
  if (!row?.found) return { missing: 'agent' };
  return row.item === null ? { missing: 'version' } : { item: row.item };
}

/** A version's configuration: the fields the diff compares. */
export type VersionConfiguration = Pick<AgentVersion, (typeof VERSION_CONFIGURATION_FIELDS)[number]>;

/**
 * Two versions' configurations of one agent (`from`, `to`: null when the agent holds no such
 * version), read in one statement, or which is missing.
 */
export async function getConfigurationPair(
  runner: SqlRunner,
  caller: CallingKey,
  agentId: string,
  fromId: string,
  toId: string,
): Promise<{ from: VersionConfiguration; to: VersionConfiguration } | { missing: Missing }> {
  const ws = caller.workspaceId;
  const [row] = await runner.rows<{
    found: boolean;
    from: JsonText<VersionConfiguration> | null;
    to: JsonText<VersionConfiguration> | null;
  }>(sql`
select exists (select 1 from agents a where a.id = ${agentId} and a.workspace_id = ${ws}) as found,
  (select ${configurationJson()}
    from agent_versions v
    where v.id = ${fromId} and v.agent_id = ${agentId} and v.workspace_id = ${ws})::text as "from",
  (select ${configurationJson()}
    from agent_versions v
    where v.id = ${toId} and v.agent_id = ${agentId} and v.workspace_id = ${ws})::text as "to"
where ${keyIsLive(caller.keyId)}`);
  if (!row?.found) return { missing: 'agent' };
  if (row.from === null || row.to === null) return { missing: 'version' };
  return { from: JSON.parse(row.from), to: JSON.parse(row.to) };
}
