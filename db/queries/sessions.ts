import sql, { type Sql } from 'sql-template-tag';
import type { sessionStatus, sessionType } from '#contract/enums.ts';
import type { Session } from '#contract/schemas/session.ts';
import type { SqlRunner } from '../database.ts';
import { type CallingKey, keyIsLive } from './api-keys.ts';
import { sessionOne, sessionPage } from './items.generated.ts';
import type { JsonText } from './json-text.ts';
import { isIn, type ListWindow, type Page, runPage } from './list-window.ts';
import { ledgerEntries as L, sessions as S } from './names.generated.ts';

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

const HAS_LEDGER = sql`exists (select 1 from ${L.$} where ${L.$}.${L.sessionId} = ${S.$}.${S.id})`;

/** The workspace and the filters, on the bare `sessions` table (every one served by an index). */
function matching(workspaceId: string, f: SessionFilters): Sql[] {
  const column = (name: Sql) => sql`${S.$}.${name}`;
  return [
    sql`${column(S.workspaceId)} = ${workspaceId}`,
    f.agentId && isIn(column(S.agentId), f.agentId),
    f.agentVersionId && isIn(column(S.agentVersionId), f.agentVersionId),
    f.personId && isIn(column(S.personId), f.personId),
    f.conversationId && isIn(column(S.conversationId), f.conversationId),
    f.status && isIn(column(S.status), f.status),
    f.type && isIn(column(S.type), f.type),
    f.createdAfter ? sql`${column(S.createdAt)} > ${f.createdAfter}` : undefined,
    f.createdBefore ? sql`${column(S.createdAt)} < ${f.createdBefore}` : undefined,
    f.hasLedger === undefined ? undefined : f.hasLedger ? HAS_LEDGER : sql`not ${HAS_LEDGER}`,
  ].filter((c): c is Sql => c !== undefined);
}

/**
 * One page of the caller's workspace's sessions, each with its agent (and the version the session
 * ran on), conversation, person and ledger entry: one statement (`sessionPage`), `limit + 1` items
 * as JSON text, and with `includeTotal` how many match, counted in the same statement.
 */
export function pageSessionsJson(
  runner: SqlRunner,
  caller: CallingKey,
  window: ListWindow,
  filters: SessionFilters = {},
  includeTotal = false,
): Promise<Page<Session>> {
  const conditions = matching(caller.workspaceId, filters);
  return runPage<Session>(runner, sessionPage, S, conditions, window, includeTotal, keyIsLive(caller.keyId));
}

/** One session of a workspace, with the embeds of a list's item, as JSON text; undefined when none such. */
export async function getSessionJson(
  runner: SqlRunner,
  caller: CallingKey,
  sessionId: string,
): Promise<JsonText<Session> | undefined> {
  const [row] = await runner.rows<{ item: JsonText<Session> }>(
    sessionOne(sql`${sessionId}`, sql`${caller.workspaceId}`, keyIsLive(caller.keyId)),
  );
  return row?.item;
}
