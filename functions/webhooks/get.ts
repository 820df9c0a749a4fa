import { routes } from '#contract/routes.ts';
import { NoQuery, noQueryParams } from '#contract/schemas/query.ts';
import { getEndpoint } from '#db/queries/webhook-endpoints.ts';
import { type Deps, lambda } from '../deps.ts';
import { noSuch, pathParam } from '../http/path.ts';
import { parseQuery } from '../http/query.ts';
import { jsonText } from '../http/respond.ts';
import { route } from '../http/route.ts';

/** GET /webhook-endpoints/{endpointId} */
export const build = (deps: Deps) =>
  route(routes.getWebhookEndpoint, deps, async (req) => {
    const endpointId = pathParam(req.event, 'endpointId', 'webhook endpoint');
    parseQuery(NoQuery, noQueryParams, req.event);
    const found = await getEndpoint(req.runner, req.caller, endpointId);
    if (!found) throw noSuch('webhook endpoint');
    return jsonText(req.requestId, 200, found.item, { etag: found.etag });
  });

export const handler = lambda(build);
