import { routes } from '#contract/routes.ts';
import { NoQuery, noQueryParams } from '#contract/schemas/query.ts';
import { getSessionJson } from '#db/queries/sessions.ts';
import { type Deps, lambda } from '../deps.ts';
import { noSuch, pathParam } from '../http/path.ts';
import { parseQuery } from '../http/query.ts';
import { jsonText } from '../http/respond.ts';
import { route } from '../http/route.ts';

/** GET /sessions/{sessionId} */
export const build = (deps: Deps) =>
  route(routes.getSession, deps, async (req) => {
    const sessionId = pathParam(req.event, 'sessionId', 'session');
    parseQuery(NoQuery, noQueryParams, req.event);
    const item = await getSessionJson(req.runner, req.caller, sessionId);
    if (item === undefined) throw noSuch('session');
    return jsonText(req.requestId, 200, item);
  });

export const handler = lambda(build);
