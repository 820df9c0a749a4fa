import { routes } from '#contract/routes.ts';
import { webhookDeliveryListQuery } from '#contract/schemas/webhook-requests.ts';
import { pageDeliveries } from '#db/queries/webhook-deliveries.ts';
import { type Deps, lambda } from '../deps.ts';
import { listRoute } from '../http/list-route.ts';

/** GET /webhook-endpoints/{endpointId}/deliveries (no such endpoint: 404) */
export const build = (deps: Deps) =>
  listRoute(
    // A position among one endpoint's deliveries means nothing in another's.
    {
      ...routes.listWebhookDeliveries,
      query: webhookDeliveryListQuery,
      list: (p) => `webhook-deliveries.${p.endpointId}`,
    },
    deps,
    (req, list) =>
      pageDeliveries(
        req.runner,
        req.caller,
        req.params.endpointId,
        list.filters,
        list.window,
        list.includeTotal,
      ),
  );

export const handler = lambda(build);
