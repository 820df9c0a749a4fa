import { routes } from '#contract/routes.ts';
import { EmptyBody } from '#contract/schemas/common.ts';
import { NoQuery, noQueryParams } from '#contract/schemas/query.ts';
import { queueRedelivery } from '#db/queries/webhook-deliveries.ts';
import { type Deps, lambda } from '../deps.ts';
import { parseOptionalJsonBody } from '../http/body.ts';
import { noSuch, pathParam } from '../http/path.ts';
import { parseQuery } from '../http/query.ts';
import { jsonText } from '../http/respond.ts';
import { route } from '../http/route.ts';

/** POST /webhook-deliveries/{deliveryId}/redeliver: 202, a new delivery with the same webhook-id and body. */
export const build = (deps: Deps) =>
  route(routes.redeliverWebhook, deps, async (req) => {
    const deliveryId = pathParam(req.event, 'deliveryId', 'webhook delivery');
    parseQuery(NoQuery, noQueryParams, req.event);
    parseOptionalJsonBody(EmptyBody, req.event);
    const item = await queueRedelivery(req.runner, req.caller, deliveryId);
    if (!item) throw noSuch('webhook delivery');
    return jsonText(req.requestId, 202, item);
  });

export const handler = lambda(build);
