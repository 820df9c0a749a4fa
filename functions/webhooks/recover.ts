import { routes } from '#contract/routes.ts';
import { NoQuery, noQueryParams } from '#contract/schemas/query.ts';
import { RecoverWebhookBody } from '#contract/schemas/webhook-requests.ts';
import { recoverWindow } from '#db/queries/webhook-deliveries.ts';
import { type Deps, lambda } from '../deps.ts';
import { parseJsonBody } from '../http/body.ts';
import { noSuch, pathParam } from '../http/path.ts';
import { parseQuery } from '../http/query.ts';
import { json } from '../http/respond.ts';
import { route } from '../http/route.ts';

/** POST /webhook-endpoints/{endpointId}/recover: 202 and how many deliveries were queued. */
export const build = (deps: Deps) =>
  route(routes.recoverWebhookEvents, deps, async (req) => {
    const endpointId = pathParam(req.event, 'endpointId', 'webhook endpoint');
    parseQuery(NoQuery, noQueryParams, req.event);
    const body = parseJsonBody(RecoverWebhookBody, req.event);
    const queued = await recoverWindow(req.runner, req.caller, endpointId, body.since, body.until);
    if (queued === undefined) throw noSuch('webhook endpoint');
    return json(req.requestId, 202, { queued });
  });

export const handler = lambda(build);
