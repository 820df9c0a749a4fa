import { routes } from '#contract/routes.ts';
import { NoQuery, noQueryParams } from '#contract/schemas/query.ts';
import { getVersionJson } from '#db/queries/versions.ts';
import { type Deps, lambda } from '../deps.ts';
import { noSuch, pathParam } from '../http/path.ts';
import { parseQuery } from '../http/query.ts';
import { jsonText } from '../http/respond.ts';
import { route } from '../http/route.ts';

/** GET /agents/{agentId}/versions/{versionId} */
export const build = (deps: Deps) =>
  route(routes.getVersion, deps, async (req) => {
    const agentId = pathParam(req.event, 'agentId', 'agent');
    const versionId = pathParam(req.event, 'versionId', 'version');
    parseQuery(NoQuery, noQueryParams, req.event);
    const found = await getVersionJson(req.runner, req.caller, agentId, versionId);
    if ('missing' in found) throw noSuch(found.missing);
    return jsonText(req.requestId, 200, found.item);
  });

export const handler = lambda(build);
