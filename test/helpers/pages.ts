import type { Agent } from '#contract/schemas/agent.ts';
import type { Session } from '#contract/schemas/session.ts';
import type { SqlRunner } from '#db/database.ts';
import { type AgentFilters, pageAgentsJson } from '#db/queries/agents.ts';
import type { CallingKey } from '#db/queries/api-keys.ts';
import type { ListWindow } from '#db/queries/list-window.ts';
import { pageSessionsJson, type SessionFilters } from '#db/queries/sessions.ts';

/** A page of the key's workspace's sessions parsed, for tests that want objects rather than the API's JSON text. */
export async function pageSessions(
  runner: SqlRunner,
  caller: CallingKey,
  window: ListWindow,
  filters: SessionFilters = {},
): Promise<Session[]> {
  return (await pageSessionsJson(runner, caller, window, filters)).items.map((item) => JSON.parse(item));
}

/** A page of the key's workspace's agents parsed, for tests that want objects rather than the API's JSON text. */
export async function pageAgents(
  runner: SqlRunner,
  caller: CallingKey,
  window: ListWindow,
  filters: AgentFilters = {},
): Promise<Agent[]> {
  return (await pageAgentsJson(runner, caller, window, filters)).items.map((item) => JSON.parse(item));
}
