import sql, { type Sql } from 'sql-template-tag';
import type { agentStatus } from '#contract/enums.ts';
import type { Agent } from '#contract/schemas/agent.ts';
import type { SqlRunner } from '../database.ts';
import { agentPage } from './items.generated.ts';
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
 * One page of a workspace's agents as JSON text (`agentPage`), `limit + 1` items so the caller
 * knows if more follow, and with `includeTotal` how many match, counted in the same statement.
 */
export function pageAgentsJson(
  runner: SqlRunner,
  workspaceId: string,
  window: ListWindow,
  filters: AgentFilters = {},
  includeTotal = false,
): Promise<Page<Agent>> {
  return runPage<Agent>(runner, agentPage, A, matching(workspaceId, filters), window, includeTotal);
}
