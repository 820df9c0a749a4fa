import { routes } from '#contract/routes.ts';
import { noQuery } from '#contract/schemas/query.ts';
import { getDelivery } from '#db/queries/webhook-deliveries.ts';
import { type Deps, lambda } from '../deps.ts';
import { noSuch } from '../http/path.ts';
import { jsonText } from '../http/respond.ts';
import { route } from '../http/route.ts';

/** GET /webhook-deliveries/{deliveryId}: the delivery and every attempt. */
export const build = (deps: Deps) =>
  route({ ...routes.getWebhookDelivery, query: noQuery }, deps, async (req) => {
    const item = await getDelivery(req.runner, req.caller, req.params.deliveryId);
    if (!item) throw noSuch('webhook delivery');
    return jsonText(req.requestId, 200, item);
  });

export const handler = lambda(build);
