import { routes } from '#contract/routes.ts';
import { webhookEndpointListQuery } from '#contract/schemas/webhook-requests.ts';
import { pageEndpoints } from '#db/queries/webhook-endpoints.ts';
import { type Deps, lambda } from '../deps.ts';
import { listRoute } from '../http/list-route.ts';

/** GET /webhook-endpoints */
export const build = (deps: Deps) =>
  listRoute(
    { ...routes.listWebhookEndpoints, query: webhookEndpointListQuery, list: 'webhook-endpoints' },
    deps,
    (req, list) => pageEndpoints(req.runner, req.caller, list.window, list.includeTotal),
  );

export const handler = lambda(build);
