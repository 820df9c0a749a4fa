import { pageSessions } from '#db/queries/sessions.ts';
import { type Deps, lambda } from '../deps.ts';
import { pageResponse } from '../http/pagination.ts';
import { parseQuery } from '../http/query.ts';
import { route } from '../http/route.ts';
import { routes } from '../routes.ts';
import { PageQuery } from '../schemas/requests.ts';

/** GET /sessions */
export const build = (deps: Deps) =>
  route(routes.listSessions, deps, async (req) => {
    const query = parseQuery(PageQuery, req.event);
    const rows = await pageSessions(deps.db, req.caller.workspaceId, query);
    return pageResponse(req, query, rows);
  });

export const handler = lambda(build);
