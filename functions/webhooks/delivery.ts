import { routes } from '#contract/routes.ts';
import { NoQuery, noQueryParams } from '#contract/schemas/query.ts';
import { getDelivery } from '#db/queries/webhook-deliveries.ts';
import { type Deps, lambda } from '../deps.ts';
import { noSuch, pathParam } from '../http/path.ts';
import { parseQuery } from '../http/query.ts';
import { jsonText } from '../http/respond.ts';
import { route } from '../http/route.ts';

/** GET /webhook-deliveries/{deliveryId}: the delivery and every attempt. */
export const build = (deps: Deps) =>
  route(routes.getWebhookDelivery, deps, async (req) => {
    const deliveryId = pathParam(req.event, 'deliveryId', 'webhook delivery');
    parseQuery(NoQuery, noQueryParams, req.event);
    const item = await getDelivery(req.runner, req.caller, deliveryId);
    if (!item) throw noSuch('webhook delivery');
    return jsonText(req.requestId, 200, item);
  });

export const handler = lambda(build);
