import { routes } from '#contract/routes.ts';
import { VersionListQuery, versionListParams } from '#contract/schemas/list-queries.ts';
import { pageVersionsJson } from '#db/queries/versions.ts';
import { type Deps, lambda } from '../deps.ts';
import { listRequest, listResponse } from '../http/pagination.ts';
import { noSuch, pathParam } from '../http/path.ts';
import { parseQuery } from '../http/query.ts';
import { route } from '../http/route.ts';

/** GET /agents/{agentId}/versions */
export const build = (deps: Deps) =>
  route(routes.listVersions, deps, async (req) => {
    const agentId = pathParam(req.event, 'agentId', 'agent');
    const query = parseQuery(VersionListQuery, versionListParams, req.event);
    // A cursor is bound to this agent's list: a position among one agent's versions means nothing in another's.
    const list = listRequest(query, `agents/${agentId}/versions`, req.caller.workspaceId);
    const page = await pageVersionsJson(
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
