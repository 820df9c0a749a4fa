import { routes } from '#contract/routes.ts';
import { SessionListQuery, sessionListParams } from '#contract/schemas/session-list-query.ts';
import { pageSessionsJson } from '#db/queries/sessions.ts';
import { type Deps, lambda } from '../deps.ts';
import { listRequest, listResponse } from '../http/pagination.ts';
import { parseQuery } from '../http/query.ts';
import { route } from '../http/route.ts';

/** GET /sessions */
export const build = (deps: Deps) =>
  route(routes.listSessions, deps, async (req) => {
    const query = parseQuery(SessionListQuery, sessionListParams, req.event);
    const list = listRequest(query, 'sessions', req.caller.workspaceId);
    const page = await pageSessionsJson(
      req.runner,
      req.caller,
      list.window,
      list.filters,
      query.includeTotal === true,
    );
    return listResponse(req, list, page.items, page.total);
  });

export const handler = lambda(build);
