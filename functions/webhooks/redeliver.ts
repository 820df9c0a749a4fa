import { routes } from '#contract/routes.ts';
import { EmptyBody } from '#contract/schemas/common.ts';
import { noQuery } from '#contract/schemas/query.ts';
import { queueRedelivery } from '#db/queries/webhook-deliveries.ts';
import { type Deps, lambda } from '../deps.ts';
import { noSuch } from '../http/path.ts';
import { jsonText } from '../http/respond.ts';
import { route } from '../http/route.ts';

/** POST /webhook-deliveries/{deliveryId}/redeliver: 202, a new delivery with the same webhook-id and body. */
export const build = (deps: Deps) =>
  route(
    { ...routes.redeliverWebhook, query: noQuery, body: EmptyBody, bodyOptional: true },
    deps,
    async (req) => {
      const item = await queueRedelivery(req.runner, req.caller, req.params.deliveryId);
      if (!item) throw noSuch('webhook delivery');
      return jsonText(req.requestId, 202, item);
    },
  );

export const handler = lambda(build);
