import sql, { type Sql } from 'sql-template-tag';
import type { agentStatus } from '#contract/enums.ts';
import type { Agent } from '#contract/schemas/agent.ts';
import type { SqlRunner } from '../database.ts';
import { AGENT_ITEM } from './items.generated.ts';
import type { JsonText } from './json-text.ts';
import { countMatching, isIn, type ListWindow, pageItems } from './list-window.ts';

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
    f.status && isIn('agents.status', f.status),
    f.slug === undefined ? undefined : sql`agents.slug = ${f.slug}`,
    f.q === undefined ? undefined : sql`agents.name ilike ${`%${likeLiteral(f.q)}%`}`,
  ].filter((c): c is Sql => c !== undefined);
}

/** One page of a workspace's agents as JSON text; `limit + 1` rows so the caller knows if more follow. */
export function pageAgentsJson(
  runner: SqlRunner,
  workspaceId: string,
  window: ListWindow,
  filters: AgentFilters = {},
): Promise<JsonText<Agent>[]> {
  return pageItems<Agent>(runner, 'agents', 'a', AGENT_ITEM, matching(workspaceId, filters), window);
}

/** The same page parsed, for callers that want objects (the seeders' checks, tests). */
export async function pageAgents(
  runner: SqlRunner,
  workspaceId: string,
  window: ListWindow,
  filters: AgentFilters = {},
): Promise<Agent[]> {
  return (await pageAgentsJson(runner, workspaceId, window, filters)).map((item) => JSON.parse(item));
}

/** How many agents match, for `includeTotal`. */
export function countAgents(runner: SqlRunner, workspaceId: string, filters: AgentFilters): Promise<number> {
  return countMatching(runner, 'agents', matching(workspaceId, filters));
}
