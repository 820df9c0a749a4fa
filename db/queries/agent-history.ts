import sql, { type Sql } from 'sql-template-tag';
import type { AgentChange } from '#contract/schemas/agent-change.ts';
import type { SqlRunner } from '../database.ts';
import { type CallingKey, keyIsLive } from './api-keys.ts';
import {
  allOf,
  direction,
  type ListWindow,
  type Page,
  pageBounds,
  pastCursor,
  readsOffIndex,
} from './list-window.ts';
import { agentChangeJson } from './projections.ts';

/** The page's history entries (`readsOffIndex`), as sessions.ts reads its page. */
function pageRows(where: Sql, window: ListWindow): Sql {
  if (readsOffIndex(window)) return sql`select * from agent_changes where ${where} ${pageBounds(window)}`;
  return sql`select c.*
  from (select id, created_at from agent_changes where ${where} ${pageBounds(window)}) page
  cross join lateral (select * from agent_changes where agent_changes.id = page.id offset 0) c`;
}

/**
 * One page of an agent's history as JSON text (one statement), `limit + 1` entries so the caller
 * knows if more follow, with `includeTotal` their count; undefined when the workspace holds no
 * such agent. `found` says whether the workspace holds the agent at all (an empty page of an agent
 * that exists is not a 404), in the page's snapshot.
 */
export async function pageAgentHistoryJson(
  runner: SqlRunner,
  caller: CallingKey,
  agentId: string,
  window: ListWindow,
  includeTotal = false,
): Promise<Page<AgentChange> | undefined> {
  const { workspaceId } = caller;
  const conditions = [sql`workspace_id = ${workspaceId}`, sql`agent_id = ${agentId}`];
  const dir = direction(window);
  const total = includeTotal
    ? sql`(select count(*)::int from agent_changes where ${allOf(conditions)})`
    : sql`null::int`;
  const rows = await runner.rows<{
    item: Page<AgentChange>['items'][number] | null;
    total: number | null;
    found: boolean;
  }>(sql`
with page as (
  ${pageRows(allOf([...conditions, ...pastCursor(window)]), window)}
)
select t.total, t.found, case when c.id is null then null else ${agentChangeJson()} end::text as item
from (
  select ${total} as total,
    exists (select 1 from agents where id = ${agentId} and workspace_id = ${workspaceId}) as found
) t
left join page c on true
where ${keyIsLive(caller.keyId)}
order by c.created_at ${dir}, c.id ${dir}`);
  if (!rows[0]?.found) return undefined;
  const items = rows.flatMap((r) => (r.item === null ? [] : [r.item]));
  return includeTotal ? { items, total: rows[0]?.total ?? 0 } : { items };
}
