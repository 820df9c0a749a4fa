import { routes } from '#contract/routes.ts';
import { noQuery } from '#contract/schemas/query.ts';
import { getVersionJson } from '#db/queries/versions.ts';
import { type Deps, lambda } from '../deps.ts';
import { noSuch } from '../http/path.ts';
import { jsonText } from '../http/respond.ts';
import { route } from '../http/route.ts';

/** GET /agents/{agentId}/versions/{versionId} */
export const build = (deps: Deps) =>
  route({ ...routes.getVersion, query: noQuery }, deps, async (req) => {
    const found = await getVersionJson(req.runner, req.caller, req.params.agentId, req.params.versionId);
    if ('missing' in found) throw noSuch(found.missing);
    return jsonText(req.requestId, 200, found.item);
  });

export const handler = lambda(build);
