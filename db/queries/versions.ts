import sql, { raw, type Sql } from 'sql-template-tag';
import type { AgentVersion, VERSION_CONFIGURATION_FIELDS } from '#contract/schemas/agent.ts';
import type { SqlRunner } from '../database.ts';
import { type CallingKey, keyIsLive } from './api-keys.ts';
import { versionOne, versionPage, versionPair } from './items.generated.ts';
import type { JsonText } from './json-text.ts';
import { allOf, direction, type ListWindow, type Page } from './list-window.ts';
import { agentVersions as V } from './names.generated.ts';

/**
 * The `page` CTE of an agent's versions: ids and numbers on the `(agent_id, version)` index,
 * `limit + 1` of them. Ordered by number, not `(created_at, id)`: two versions may share a
 * millisecond, never a number. A cursor's position names its last version by id; the page starts
 * past that version's number (a cursor naming no version of this agent starts nowhere: empty page).
 */
function versionPageCte(agentId: string, workspaceId: string, window: ListWindow): Sql {
  const dir = direction(window);
  const { after } = window;
  const past = after
    ? [
        sql`${V.version} ${raw(window.order === 'asc' ? '>' : '<')} (select p.${V.version} from ${V.$} p where p.${V.id} = ${after.id} and p.${V.agentId} = ${agentId})`,
      ]
    : [];
  return sql`page as (
  select ${V.id}, ${V.version} from ${V.$}
  where ${allOf([sql`${V.agentId} = ${agentId}`, sql`${V.workspaceId} = ${workspaceId}`, ...past])}
  order by ${V.version} ${dir}
  limit ${window.limit + 1} offset ${after ? 0 : window.offset}
)`;
}

/**
 * One page of an agent's versions as JSON text (`versionPage`), `limit + 1` items, with
 * `includeTotal` how many it has; `undefined` when the workspace holds no such agent. One statement.
 */
export async function pageVersionsJson(
  runner: SqlRunner,
  caller: CallingKey,
  agentId: string,
  window: ListWindow,
  includeTotal = false,
): Promise<Page<AgentVersion> | undefined> {
  const { workspaceId } = caller;
  const total = includeTotal
    ? sql`(select count(*)::int from ${V.$} where ${V.agentId} = ${agentId} and ${V.workspaceId} = ${workspaceId})`
    : raw('null::int');
  const rows = await runner.rows<{
    item: JsonText<AgentVersion> | null;
    total: number | null;
    found: boolean;
  }>(
    versionPage(
      versionPageCte(agentId, workspaceId, window),
      direction(window),
      total,
      sql`${agentId}`,
      sql`${workspaceId}`,
      keyIsLive(caller.keyId),
    ),
  );
  if (!rows[0]?.found) return undefined;
  const items = rows.flatMap((r) => (r.item === null ? [] : [r.item]));
  return includeTotal ? { items, total: rows[0].total ?? 0 } : { items };
}

/** Why a version read found nothing: the agent is not the workspace's, or the version not the agent's. */
export type Missing = 'agent' | 'version';

/** One version of an agent as JSON text, or which of the two the workspace does not hold. */
export async function getVersionJson(
  runner: SqlRunner,
  caller: CallingKey,
  agentId: string,
  versionId: string,
): Promise<{ item: JsonText<AgentVersion> } | { missing: Missing }> {
  const [row] = await runner.rows<{ found: boolean; item: JsonText<AgentVersion> | null }>(
    versionOne(sql`${agentId}`, sql`${versionId}`, sql`${caller.workspaceId}`, keyIsLive(caller.keyId)),
  );
  if (!row?.found) return { missing: 'agent' };
  return row.item === null ? { missing: 'version' } : { item: row.item };
}

/** A version's configuration: the fields the diff compares. */
export type VersionConfiguration = Pick<AgentVersion, (typeof VERSION_CONFIGURATION_FIELDS)[number]>;

/** Two versions' configurations of one agent, read in one statement, or which is missing. */
export async function getConfigurationPair(
  runner: SqlRunner,
  caller: CallingKey,
  agentId: string,
  fromId: string,
  toId: string,
): Promise<{ from: VersionConfiguration; to: VersionConfiguration } | { missing: Missing }> {
  const [row] = await runner.rows<{
    found: boolean;
    from: JsonText<VersionConfiguration> | null;
    to: JsonText<VersionConfiguration> | null;
  }>(
    versionPair(
      sql`${agentId}`,
      sql`${fromId}`,
      sql`${toId}`,
      sql`${caller.workspaceId}`,
      keyIsLive(caller.keyId),
    ),
  );
  if (!row?.found) return { missing: 'agent' };
  if (row.from === null || row.to === null) return { missing: 'version' };
  return { from: JSON.parse(row.from), to: JSON.parse(row.to) };
}
