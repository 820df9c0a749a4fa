import { routes } from '#contract/routes.ts';
import { AgentListQuery, agentListParams } from '#contract/schemas/list-queries.ts';
import { pageAgentsJson } from '#db/queries/agents.ts';
import { type Deps, lambda } from '../deps.ts';
import { listRequest, listResponse } from '../http/pagination.ts';
import { parseQuery } from '../http/query.ts';
import { route } from '../http/route.ts';

/** GET /agents */
export const build = (deps: Deps) =>
  route(routes.listAgents, deps, async (req) => {
    const query = parseQuery(AgentListQuery, agentListParams, req.event);
    const list = listRequest(query, 'agents', req.caller.workspaceId);
    const page = await pageAgentsJson(
      req.runner,
      req.caller,
      list.window,
      list.filters,
      query.includeTotal === true,
    );
    return listResponse(req, list, page.items, page.total);
  });

export const handler = lambda(build);
