import sql from 'sql-template-tag';
import type { AgentChange } from '#contract/schemas/agent-change.ts';
import type { SqlRunner } from '../database.ts';
import { type CallingKey, keyIsLive } from './api-keys.ts';
import { agentChangePage } from './items.generated.ts';
import { allOf, direction, type ListWindow, type Page, pageCte } from './list-window.ts';
import { agents as A, agentChanges as C } from './names.generated.ts';

/**
 * One page of an agent's history as JSON text (`agentChangePage`, one statement), `limit + 1`
 * entries so the caller knows if more follow, with `includeTotal` their count; undefined when the
 * workspace holds no such agent.
 */
export async function pageAgentHistoryJson(
  runner: SqlRunner,
  caller: CallingKey,
  agentId: string,
  window: ListWindow,
  includeTotal = false,
): Promise<Page<AgentChange> | undefined> {
  const { workspaceId } = caller;
  const conditions = [sql`${C.workspaceId} = ${workspaceId}`, sql`${C.agentId} = ${agentId}`];
  const total = includeTotal
    ? sql`(select count(*)::int from ${C.$} where ${allOf(conditions)})`
    : sql`null::int`;
  const found = sql`exists (select 1 from ${A.$} where ${A.id} = ${agentId} and ${A.workspaceId} = ${workspaceId})`;
  const rows = await runner.rows<{
    item: Page<AgentChange>['items'][number] | null;
    total: number | null;
    found: boolean;
  }>(
    agentChangePage(pageCte(C, conditions, window), direction(window), total, found, keyIsLive(caller.keyId)),
  );
  if (!rows[0]?.found) return undefined;
  const items = rows.flatMap((r) => (r.item === null ? [] : [r.item]));
  return includeTotal ? { items, total: rows[0]?.total ?? 0 } : { items };
}
