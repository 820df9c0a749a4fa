import { routes } from '#contract/routes.ts';
import { noQuery } from '#contract/schemas/query.ts';
import { getSessionJson } from '#db/queries/sessions.ts';
import { type Deps, lambda } from '../deps.ts';
import { noSuch } from '../http/path.ts';
import { jsonText } from '../http/respond.ts';
import { route } from '../http/route.ts';

/** GET /sessions/{sessionId} */
export const build = (deps: Deps) =>
  route({ ...routes.getSession, query: noQuery }, deps, async (req) => {
    const item = await getSessionJson(req.runner, req.caller, req.params.sessionId);
    if (item === undefined) throw noSuch('session');
    return jsonText(req.requestId, 200, item);
  });

export const handler = lambda(build);
