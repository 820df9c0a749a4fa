import { routes } from '#contract/routes.ts';
import { WebhookDeliveryListQuery, webhookDeliveryListParams } from '#contract/schemas/webhook-requests.ts';
import { pageDeliveries } from '#db/queries/webhook-deliveries.ts';
import { type Deps, lambda } from '../deps.ts';
import { listRequest, listResponse } from '../http/pagination.ts';
import { noSuch, pathParam } from '../http/path.ts';
import { parseQuery } from '../http/query.ts';
import { route } from '../http/route.ts';

/** GET /webhook-endpoints/{endpointId}/deliveries */
export const build = (deps: Deps) =>
  route(routes.listWebhookDeliveries, deps, async (req) => {
    const endpointId = pathParam(req.event, 'endpointId', 'webhook endpoint');
    const query = parseQuery(WebhookDeliveryListQuery, webhookDeliveryListParams, req.event);
    const list = listRequest(query, `webhook-deliveries.${endpointId}`, req.caller.workspaceId);
    const items = await pageDeliveries(req.runner, req.caller, endpointId, list.filters, list.window);
    if (!items) throw noSuch('webhook endpoint');
    return listResponse(req, list, items);
  });

export const handler = lambda(build);
