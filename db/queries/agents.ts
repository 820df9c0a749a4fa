import sql, { raw, type Sql } from 'sql-template-tag';
import type { agentStatus } from '#contract/enums.ts';
import type { Agent } from '#contract/schemas/agent.ts';
import type { SqlRunner } from '../database.ts';
import { type CallingKey, keyIsLive } from './api-keys.ts';
import { agentOne, agentPage } from './items.generated.ts';
import type { JsonText } from './json-text.ts';
import { isIn, type ListWindow, type Page, runPage } from './list-window.ts';
import { agents as A } from './names.generated.ts';

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
  const column = (name: Sql) => sql`${A.$}.${name}`;
  return [
    sql`${column(A.workspaceId)} = ${workspaceId}`,
    f.status && isIn(column(A.status), f.status),
    f.slug === undefined ? undefined : sql`${column(A.slug)} = ${f.slug}`,
    f.q === undefined ? undefined : sql`${column(A.name)} ilike ${`%${likeLiteral(f.q)}%`}`,
  ].filter((c): c is Sql => c !== undefined);
}

/**
 * One page of the caller's workspace's agents as JSON text (`agentPage`), `limit + 1` items so the
 * caller knows if more follow, and with `includeTotal` how many match, counted in the same statement.
 */
export function pageAgentsJson(
  runner: SqlRunner,
  caller: CallingKey,
  window: ListWindow,
  filters: AgentFilters = {},
  includeTotal = false,
): Promise<Page<Agent>> {
  const conditions = matching(caller.workspaceId, filters);
  return runPage<Agent>(runner, agentPage, A, conditions, window, includeTotal, keyIsLive(caller.keyId));
}

/**
 * An agent's ETag in SQL, the text functions/http/etag.ts `agentEtag` makes of an answer:
 * `"<id>.<updated_at in epoch ms>"`. Milliseconds cut down (floor), as the answer's `updatedAt` is.
 * `alias` is the agents row's alias in the statement.
 */
export const agentEtagSql = (alias: string): Sql => {
  const a = raw(alias);
  return sql`'"' || ${a}.${A.id} || '.' || floor(extract(epoch from ${a}.${A.updatedAt}) * 1000)::bigint || '"'`;
};

/** One agent (as a list's item is, JSON text) and its ETag; undefined when the workspace holds none such. */
export async function getAgentJson(
  runner: SqlRunner,
  caller: CallingKey,
  agentId: string,
): Promise<{ item: JsonText<Agent>; etag: string } | undefined> {
  const [row] = await runner.rows<{ item: JsonText<Agent>; etag: string }>(
    agentOne(sql`${agentId}`, sql`${caller.workspaceId}`, agentEtagSql('a'), keyIsLive(caller.keyId)),
  );
  return row;
}
