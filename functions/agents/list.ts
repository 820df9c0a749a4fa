import { routes } from '#contract/routes.ts';
import { agentListQuery } from '#contract/schemas/list-queries.ts';
import { pageAgentsJson } from '#db/queries/agents.ts';
import { type Deps, lambda } from '../deps.ts';
import { listRoute } from '../http/list-route.ts';

/** GET /agents */
export const build = (deps: Deps) =>
  listRoute({ ...routes.listAgents, query: agentListQuery, list: 'agents' }, deps, (req, list) =>
    pageAgentsJson(req.runner, req.caller, list.window, list.filters, list.includeTotal),
  );

export const handler = lambda(build);
