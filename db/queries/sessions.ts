import sql, { type Sql } from 'sql-template-tag';
import type { sessionStatus, sessionType } from '#contract/enums.ts';
import type { Session } from '#contract/schemas/session.ts';
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
import { agentJson, sessionItemJson, versionJson } from './projections.ts';

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

const HAS_LEDGER = sql`exists (select 1 from ledger_entries where ledger_entries.session_id = sessions.id)`;

/** The workspace and the filters, on the bare `sessions` table (every one served by an index). */
function matching(workspaceId: string, f: SessionFilters): Sql[] {
  return [
    sql`sessions.workspace_id = ${workspaceId}`,
    f.agentId && isIn(sql`sessions.agent_id`, f.agentId),
    f.agentVersionId && isIn(sql`sessions.agent_version_id`, f.agentVersionId),
    f.personId && isIn(sql`sessions.person_id`, f.personId),
    f.conversationId && isIn(sql`sessions.conversation_id`, f.conversationId),
    f.status && isIn(sql`sessions.status`, f.status),
    f.type && isIn(sql`sessions.type`, f.type),
    f.createdAfter ? sql`sessions.created_at > ${f.createdAfter}` : undefined,
    f.createdBefore ? sql`sessions.created_at < ${f.createdBefore}` : undefined,
    f.hasLedger === undefined ? undefined : f.hasLedger ? HAS_LEDGER : sql`not ${HAS_LEDGER}`,
  ].filter((c): c is Sql => c !== undefined);
}

/**
 * The page's sessions (`readsOffIndex`; `offset 0` keeps each late lookup a probe: flattened, the
 * planner hash-joined the page against a sequential scan of sessions).
 */
function pageRows(where: Sql, window: ListWindow): Sql {
  if (readsOffIndex(window)) return sql`select * from sessions where ${where} ${pageBounds(window)}`;
  return sql`select s.*
  from (select id, created_at from sessions where ${where} ${pageBounds(window)}) page
  cross join lateral (select * from sessions where sessions.id = page.id offset 0) s`;
}

/**
 * One page of the caller's workspace's sessions, each with its agent (and the version it ran on),
 * conversation, person and ledger entry: one statement, `limit + 1` items as JSON text, and with
 * `includeTotal` how many match, counted in the same statement. Each agent version's JSON, half of
 * every item, is built once per page, its agent and version probed by primary key as the page's
 * rows are (hashing every agent and version of the database cost a short page more than it saved
 * a long one).
 */
export function pageSessionsJson(
  runner: SqlRunner,
  caller: CallingKey,
  window: ListWindow,
  filters: SessionFilters = {},
  includeTotal = false,
): Promise<Page<Session>> {
  const conditions = matching(caller.workspaceId, filters);
  const dir = direction(window);
  const total = includeTotal
    ? sql`(select count(*)::int from sessions where ${allOf(conditions)})`
    : sql`null::int`;
  return runPage<Session>(
    runner,
    sql`
with page_sessions as materialized (
  ${pageRows(allOf([...conditions, ...pastCursor(window)]), window)}
),
page_agents as materialized (
  select d.agent_id, d.agent_version_id, ${agentJson(versionJson())} as agent
  from (select distinct agent_id, agent_version_id from page_sessions) d
  cross join lateral (select * from agents where agents.id = d.agent_id offset 0) a
  cross join lateral (select * from agent_versions where agent_versions.id = d.agent_version_id offset 0) v
)
select t.total, case when s.id is null then null else ${sessionItemJson(sql`ag.agent`)} end::text as item
from (select ${total} as total) t
left join (
  page_sessions s
  left join page_agents ag
    on ag.agent_id = s.agent_id and ag.agent_version_id = s.agent_version_id
) on true
where ${keyIsLive(caller.keyId)}
order by s.created_at ${dir}, s.id ${dir}`,
    includeTotal,
  );
}

/**
 * One session of a workspace, as the page's items are (its agent with the version it ran on,
 * conversation, person and ledger entry), and its status; no row when the workspace holds no such
 * session. `live`: the calling key's guard, or `true` after a change whose own statement held it.
 */
export const sessionOne = (sessionId: string, workspaceId: string, live: Sql) => sql`
select ${sessionItemJson(sql`(select ${agentJson(versionJson())}
    from agents a, agent_versions v
    where a.id = s.agent_id and v.id = s.agent_version_id)`)}::text as item,
  s.status as status
from sessions s
where s.id = ${sessionId} and s.workspace_id = ${workspaceId} and ${live}`;

/** One session of a workspace, with the embeds of a list's item, as JSON text; undefined when none such. */
export async function getSessionJson(
  runner: SqlRunner,
  caller: CallingKey,
  sessionId: string,
): Promise<JsonText<Session> | undefined> {
  const [row] = await runner.rows<{ item: JsonText<Session> }>(
    sessionOne(sessionId, caller.workspaceId, keyIsLive(caller.keyId)),
  );
  return row?.item;
}
