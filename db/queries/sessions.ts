import { gt, inArray, lt, type SQL, sql } from 'drizzle-orm';
import type { Session } from '#contract/schemas/session.ts';
import type { Database } from '../client.ts';
import { agents, agentVersions, conversations, ledgerEntries, persons, sessions } from '../schema/index.ts';
import { type JsonText, jsonOf, rendered } from './json.ts';
import { allOf, type ListWindow, pageItems } from './list-window.ts';
import {
  AGENT_FIELDS,
  AGENT_VERSION_FIELDS,
  CONVERSATION_FIELDS,
  LEDGER_ENTRY_FIELDS,
  PERSON_FIELDS,
  SESSION_FIELDS,
} from './projections.ts';
import { rowsOf } from './rows.ts';

export interface SessionFilters {
  agentId?: string[];
  agentVersionId?: string[];
  personId?: string[];
  conversationId?: string[];
  status?: (typeof sessions.status.enumValues)[number][];
  type?: (typeof sessions.type.enumValues)[number][];
  createdAfter?: string;
  createdBefore?: string;
  hasLedger?: boolean;
}

/** The workspace and the filters, on the bare `sessions` table (every one served by an index). */
function matching(workspaceId: string, f: SessionFilters): SQL[] {
  const hasLedger = sql`exists (select 1 from ${ledgerEntries} where ${ledgerEntries.sessionId} = ${sessions.id})`;
  return [
    sql`${sessions.workspaceId} = ${workspaceId}`,
    f.agentId && inArray(sessions.agentId, f.agentId),
    f.agentVersionId && inArray(sessions.agentVersionId, f.agentVersionId),
    f.personId && inArray(sessions.personId, f.personId),
    f.conversationId && inArray(sessions.conversationId, f.conversationId),
    f.status && inArray(sessions.status, f.status),
    f.type && inArray(sessions.type, f.type),
    f.createdAfter ? gt(sessions.createdAt, f.createdAfter) : undefined,
    f.createdBefore ? lt(sessions.createdAt, f.createdBefore) : undefined,
    f.hasLedger === undefined ? undefined : f.hasLedger ? hasLedger : sql`not ${hasLedger}`,
  ].filter((c): c is SQL => c !== undefined);
}

/**
 * A session with its agent (and the version it ran on), conversation, person and ledger entry.
 * Scalar subqueries rather than joins: one index probe each all the same, but a fraction of a
 * six-way join's planning time, and a missing ledger entry is simply `null`.
 */
const SESSION_JSON = rendered(
  jsonOf(sessions, 's', SESSION_FIELDS, {
    agent: sql`(select ${jsonOf(agents, 'a', AGENT_FIELDS, { version: jsonOf(agentVersions, 'v', AGENT_VERSION_FIELDS) })}
      from ${agents} a, ${agentVersions} v where a.id = s.agent_id and v.id = s.agent_version_id)`,
    conversation: sql`(select ${jsonOf(conversations, 'c', CONVERSATION_FIELDS)} from ${conversations} c where c.id = s.conversation_id)`,
    person: sql`(select ${jsonOf(persons, 'p', PERSON_FIELDS)} from ${persons} p where p.id = s.person_id)`,
    ledger: sql`(select ${jsonOf(ledgerEntries, 'l', LEDGER_ENTRY_FIELDS)} from ${ledgerEntries} l where l.session_id = s.id)`,
  }),
);

/**
 * One page of a workspace's sessions, each with its agent (and the version the session ran on),
 * conversation, person and ledger entry: one statement, `limit + 1` rows, as JSON text.
 */
export function pageSessionsJson(
  db: Database,
  workspaceId: string,
  window: ListWindow,
  filters: SessionFilters = {},
): Promise<JsonText<Session>[]> {
  return pageItems<Session>(db, sessions, 's', SESSION_JSON, matching(workspaceId, filters), window);
}

/** The same page parsed, for callers that want objects (the seeders' checks, tests). */
export async function pageSessions(
  db: Database,
  workspaceId: string,
  window: ListWindow,
  filters: SessionFilters = {},
): Promise<Session[]> {
  return (await pageSessionsJson(db, workspaceId, window, filters)).map((item) => JSON.parse(item));
}

/** How many sessions match, for `includeTotal`. */
export async function countSessions(
  db: Database,
  workspaceId: string,
  filters: SessionFilters,
): Promise<number> {
  const rows = await db.execute(
    sql`select count(*)::int as n from ${sessions} where ${allOf(matching(workspaceId, filters))}`,
  );
  return rowsOf<{ n: number }>(rows)[0]?.n ?? 0;
}
