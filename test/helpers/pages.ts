import type { Agent } from '#contract/schemas/agent.ts';
import type { Session } from '#contract/schemas/session.ts';
import type { SqlRunner } from '#db/database.ts';
import { type AgentFilters, pageAgentsJson } from '#db/queries/agents.ts';
import type { ListWindow } from '#db/queries/list-window.ts';
import { pageSessionsJson, type SessionFilters } from '#db/queries/sessions.ts';

/** A page of sessions parsed, for tests that want objects rather than the API's JSON text. */
export async function pageSessions(
  runner: SqlRunner,
  workspaceId: string,
  window: ListWindow,
  filters: SessionFilters = {},
): Promise<Session[]> {
  return (await pageSessionsJson(runner, workspaceId, window, filters)).items.map((item) => JSON.parse(item));
}

/** A page of agents parsed, for tests that want objects rather than the API's JSON text. */
export async function pageAgents(
  runner: SqlRunner,
  workspaceId: string,
  window: ListWindow,
  filters: AgentFilters = {},
): Promise<Agent[]> {
  return (await pageAgentsJson(runner, workspaceId, window, filters)).items.map((item) => JSON.parse(item));
}
