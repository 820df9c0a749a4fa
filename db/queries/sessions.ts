import sql, { raw, type Sql } from 'sql-template-tag';
import type { sessionStatus, sessionType } from '#contract/enums.ts';
import type { Session } from '#contract/schemas/session.ts';
import type { SqlRunner } from '../database.ts';
import { SESSION_AGENT, SESSION_ITEM } from './items.generated.ts';
import type { JsonText } from './json-text.ts';
import { countMatching, direction, isIn, type ListWindow, pageCte } from './list-window.ts';

export interface SessionFilters {
  agentId?: string[];
  agentVersionId?: string[];
  personId?: string[];
  conversationId?: string[];
  status?: (typeof sessionStatus)[number][];
  type?: (typeof sessionType)[number][];
  createdAfter?: string;
  createdBefore?: string;
  hasLedger?: boolean;
}

const HAS_LEDGER = 'exists (select 1 from ledger_entries where ledger_entries.session_id = sessions.id)';

/** The workspace and the filters, on the bare `sessions` table (every one served by an index). */
function matching(workspaceId: string, f: SessionFilters): Sql[] {
  return [
    sql`sessions.workspace_id = ${workspaceId}`,
    f.agentId && isIn('sessions.agent_id', f.agentId),
    f.agentVersionId && isIn('sessions.agent_version_id', f.agentVersionId),
    f.personId && isIn('sessions.person_id', f.personId),
    f.conversationId && isIn('sessions.conversation_id', f.conversationId),
    f.status && isIn('sessions.status', f.status),
    f.type && isIn('sessions.type', f.type),
    f.createdAfter ? sql`sessions.created_at > ${f.createdAfter}` : undefined,
    f.createdBefore ? sql`sessions.created_at < ${f.createdBefore}` : undefined,
    f.hasLedger === undefined ? undefined : raw(f.hasLedger ? HAS_LEDGER : `not ${HAS_LEDGER}`),
  ].filter((c): c is Sql => c !== undefined);
}

/**
 * One page of a workspace's sessions, each with its agent (and the version the session ran on),
 * conversation, person and ledger entry: one statement, `limit + 1` rows, as JSON text. The page's
 * rows are read once by primary key (`offset 0` keeps each a probe: flattened, the planner
 * hash-joined the page against a sequential scan of sessions), and each agent version's JSON, half
 * of every item, is built once per page however many of its sessions the page holds. Its agent
 * and version are joined, not probed by primary key: probed, the statement cost the database a
 * third more CPU under load (docs/performance.md, "Agents and versions by primary key").
 */
export async function pageSessionsJson(
  runner: SqlRunner,
  workspaceId: string,
  window: ListWindow,
  filters: SessionFilters = {},
): Promise<JsonText<Session>[]> {
  const dir = direction(window);
  const rows = await runner.rows<{ item: JsonText<Session> }>(sql`
    with ${pageCte('sessions', matching(workspaceId, filters), window)},
    page_sessions as materialized (
      select s.* from page cross join lateral (select * from sessions where sessions.id = page.id offset 0) s
    ),
    page_agents as materialized (
      select d.agent_id, d.agent_version_id, ${raw(SESSION_AGENT)} as agent
      from (select distinct agent_id, agent_version_id from page_sessions) d, agents a, agent_versions v
      where a.id = d.agent_id and v.id = d.agent_version_id
    )
    select ${raw(SESSION_ITEM)}::text as item
    from page_sessions s
    left join page_agents ag on ag.agent_id = s.agent_id and ag.agent_version_id = s.agent_version_id
    order by s.created_at ${dir}, s.id ${dir}`);
  return rows.map((r) => r.item);
}

/** The same page parsed, for callers that want objects (the seeders' checks, tests). */
export async function pageSessions(
  runner: SqlRunner,
  workspaceId: string,
  window: ListWindow,
  filters: SessionFilters = {},
): Promise<Session[]> {
  return (await pageSessionsJson(runner, workspaceId, window, filters)).map((item) => JSON.parse(item));
}

/** How many sessions match, for `includeTotal`. */
export function countSessions(
  runner: SqlRunner,
  workspaceId: string,
  filters: SessionFilters,
): Promise<number> {
  return countMatching(runner, 'sessions', matching(workspaceId, filters));
}
