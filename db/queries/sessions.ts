import sql, { raw, type Sql } from 'sql-template-tag';
import type { sessionStatus, sessionType } from '#contract/enums.ts';
import type { Session } from '#contract/schemas/session.ts';
import type { SqlRunner } from '../database.ts';
import { SESSION_ITEM } from './items.generated.ts';
import type { JsonText } from './json-text.ts';
import { allOf, isIn, type ListWindow, pageItems } from './list-window.ts';

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
 * conversation, person and ledger entry: one statement, `limit + 1` rows, as JSON text.
 */
export function pageSessionsJson(
  runner: SqlRunner,
  workspaceId: string,
  window: ListWindow,
  filters: SessionFilters = {},
): Promise<JsonText<Session>[]> {
  return pageItems<Session>(runner, 'sessions', 's', SESSION_ITEM, matching(workspaceId, filters), window);
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
export async function countSessions(
  runner: SqlRunner,
  workspaceId: string,
  filters: SessionFilters,
): Promise<number> {
  const rows = await runner.rows<{ n: number }>(
    sql`select count(*)::int as n from sessions where ${allOf(matching(workspaceId, filters))}`,
  );
  return rows[0]?.n ?? 0;
}
