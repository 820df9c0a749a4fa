import { routes } from '#contract/routes.ts';
import { noQuery } from '#contract/schemas/query.ts';
import { getAgentJson } from '#db/queries/agents.ts';
import { type Deps, lambda } from '../deps.ts';
import { noneMatchHits, notModified } from '../http/etag.ts';
import { noSuch } from '../http/path.ts';
import { jsonText } from '../http/respond.ts';
import { route } from '../http/route.ts';

/** GET /agents/{agentId} */
export const build = (deps: Deps) =>
  route({ ...routes.getAgent, query: noQuery }, deps, async (req) => {
    const found = await getAgentJson(req.runner, req.caller, req.params.agentId);
    if (!found) throw noSuch('agent');
    if (noneMatchHits(req.event, found.etag)) return notModified(req.requestId, found.etag);
    return jsonText(req.requestId, 200, found.item, { etag: found.etag });
  });

export const handler = lambda(build);
