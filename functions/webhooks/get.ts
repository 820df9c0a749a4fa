import { routes } from '#contract/routes.ts';
import { noQuery } from '#contract/schemas/query.ts';
import { getEndpoint } from '#db/queries/webhook-endpoints.ts';
import { type Deps, lambda } from '../deps.ts';
import { noSuch } from '../http/path.ts';
import { jsonText } from '../http/respond.ts';
import { route } from '../http/route.ts';

/** GET /webhook-endpoints/{endpointId} */
export const build = (deps: Deps) =>
  route({ ...routes.getWebhookEndpoint, query: noQuery }, deps, async (req) => {
    const found = await getEndpoint(req.runner, req.caller, req.params.endpointId);
    if (!found) throw noSuch('webhook endpoint');
    return jsonText(req.requestId, 200, found.item, { etag: found.etag });
  });

export const handler = lambda(build);
