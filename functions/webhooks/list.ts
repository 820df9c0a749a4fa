import { routes } from '#contract/routes.ts';
import { WebhookEndpointListQuery, webhookEndpointListParams } from '#contract/schemas/webhook-requests.ts';
import { pageEndpoints } from '#db/queries/webhook-endpoints.ts';
import { type Deps, lambda } from '../deps.ts';
import { listRequest, listResponse } from '../http/pagination.ts';
import { parseQuery } from '../http/query.ts';
import { route } from '../http/route.ts';

/** GET /webhook-endpoints */
export const build = (deps: Deps) =>
  route(routes.listWebhookEndpoints, deps, async (req) => {
    const query = parseQuery(WebhookEndpointListQuery, webhookEndpointListParams, req.event);
    const list = listRequest(query, 'webhook-endpoints', req.caller.workspaceId);
    const items = await pageEndpoints(req.runner, req.caller, list.window);
    return listResponse(req, list, items);
  });

export const handler = lambda(build);
