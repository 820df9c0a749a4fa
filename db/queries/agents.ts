import sql, { type Sql } from 'sql-template-tag';
import type { agentStatus } from '#contract/enums.ts';
import type { Agent } from '#contract/schemas/agent.ts';
import type { SqlRunner } from '../database.ts';
import { type CallingKey, keyIsLive } from './api-keys.ts';
import type { JsonText } from './json-text.ts';
import {
  allOf,
  direction,
  isIn,
  type ListWindow,
  type Page,
  pageBounds,
  pastCursor,
  readsOffIndex,
  runPage,
} from './list-window.ts';
import { agentJson, latestVersionJson } from './projections.ts';

export interface AgentFilters {
  status?: (typeof agentStatus)[number][];
  slug?: string;
  /** Case-insensitive substring of the name. */
  q?: string;
}

/** `%`, `_` and `\` are LIKE wildcards: match them literally. */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

// A workspace holds few agents: its slice of the list index bounds every filter's scan.
function matching(workspaceId: string, f: AgentFilters): Sql[] {
  return [
    sql`agents.workspace_id = ${workspaceId}`,
    f.status && isIn(sql`agents.status`, f.status),
    f.slug === undefined ? undefined : sql`agents.slug = ${f.slug}`,
    f.q === undefined ? undefined : sql`agents.name ilike ${`%${likeLiteral(f.q)}%`}`,
  ].filter((c): c is Sql => c !== undefined);
}

/** The page's agents (`readsOffIndex`), as sessions.ts reads its page. */
function pageRows(where: Sql, window: ListWindow): Sql {
  if (readsOffIndex(window)) return sql`select * from agents where ${where} ${pageBounds(window)}`;
  return sql`select a.*
  from (select id, created_at from agents where ${where} ${pageBounds(window)}) page
  cross join lateral (select * from agents where agents.id = page.id offset 0) a`;
}

/**
 * One page of the caller's workspace's agents as JSON text, each with its latest version (highest
 * number): `limit + 1` items so the caller knows if more follow, and with `includeTotal` how many
 * match, counted in the same statement. The calling key's guard (`keyIsLive`) is in the top-level
 * WHERE: a one-time filter at the top of the plan.
 */
export function pageAgentsJson(
  runner: SqlRunner,
  caller: CallingKey,
  window: ListWindow,
  filters: AgentFilters = {},
  includeTotal = false,
): Promise<Page<Agent>> {
  const conditions = matching(caller.workspaceId, filters);
  const dir = direction(window);
  const total = includeTotal
    ? sql`(select count(*)::int from agents where ${allOf(conditions)})`
    : sql`null::int`;
  return runPage<Agent>(
    runner,
    sql`
with page as (
  ${pageRows(allOf([...conditions, ...pastCursor(window)]), window)}
)
select t.total, case when a.id is null then null else ${agentJson(latestVersionJson())} end::text as item
from (select ${total} as total) t
left join page a on true
where ${keyIsLive(caller.keyId)}
order by a.created_at ${dir}, a.id ${dir}`,
    includeTotal,
  );
}

/**
 * An agent's ETag, the strong tag `"<id>.<updated_at in epoch ms>"` of the agent row `a`: every
 * change moves `updated_at`, so the tag changes with the agent, and a statement can compare or
 * record it without a round trip. Milliseconds cut down (floor), as the answer's `updatedAt` is.
 */
export const agentEtagSql = (): Sql =>
  sql`'"' || a.id || '.' || floor(extract(epoch from a.updated_at) * 1000)::bigint || '"'`;

/** One agent (as a list's item is, JSON text) and its ETag; undefined when the workspace holds none such. */
export async function getAgentJson(
  runner: SqlRunner,
  caller: CallingKey,
  agentId: string,
): Promise<{ item: JsonText<Agent>; etag: string } | undefined> {
  const [row] = await runner.rows<{ item: JsonText<Agent>; etag: string }>(sql`
select ${agentJson(latestVersionJson())}::text as item, ${agentEtagSql()} as etag
from agents a
where a.id = ${agentId} and a.workspace_id = ${caller.workspaceId} and ${keyIsLive(caller.keyId)}`);
  return row;
}
