import { routes } from '#contract/routes.ts';
import { sessionListQuery } from '#contract/schemas/session-list-query.ts';
import { pageSessionsJson } from '#db/queries/sessions.ts';
import { type Deps, lambda } from '../deps.ts';
import { listRoute } from '../http/list-route.ts';

/** GET /sessions */
export const build = (deps: Deps) =>
  listRoute({ ...routes.listSessions, query: sessionListQuery, list: 'sessions' }, deps, (req, list) =>
    pageSessionsJson(req.runner, req.caller, list.window, list.filters, list.includeTotal),
  );

export const handler = lambda(build);
