import { routes } from '#contract/routes.ts';
import { agentChangeListQuery } from '#contract/schemas/list-queries.ts';
import { pageAgentHistoryJson } from '#db/queries/agent-history.ts';
import { type Deps, lambda } from '../deps.ts';
import { listRoute } from '../http/list-route.ts';

/** GET /agents/{agentId}/history (no such agent: 404) */
export const build = (deps: Deps) =>
  listRoute(
    // A cursor is one agent's: bound to it as to the list.
    { ...routes.agentHistory, query: agentChangeListQuery, list: (p) => `history ${p.agentId}` },
    deps,
    (req, list) =>
      pageAgentHistoryJson(req.runner, req.caller, req.params.agentId, list.window, list.includeTotal),
  );

export const handler = lambda(build);
