import { routes } from '#contract/routes.ts';
import { AgentChangeListQuery, agentChangeListParams } from '#contract/schemas/list-queries.ts';
import { pageAgentHistoryJson } from '#db/queries/agent-history.ts';
import { type Deps, lambda } from '../deps.ts';
import { listRequest, listResponse } from '../http/pagination.ts';
import { noSuch, pathParam } from '../http/path.ts';
import { parseQuery } from '../http/query.ts';
import { route } from '../http/route.ts';

/** GET /agents/{agentId}/history */
export const build = (deps: Deps) =>
  route(routes.agentHistory, deps, async (req) => {
    const agentId = pathParam(req.event, 'agentId', 'agent');
    const query = parseQuery(AgentChangeListQuery, agentChangeListParams, req.event);
    // A cursor is one agent's: bound to it as to the list.
    const list = listRequest(query, `history ${agentId}`, req.caller.workspaceId);
    const page = await pageAgentHistoryJson(
      req.runner,
      req.caller,
      agentId,
      list.window,
      query.includeTotal === true,
    );
    if (!page) throw noSuch('agent');
    return listResponse(req, list, page.items, page.total);
  });

export const handler = lambda(build);
