import { routes } from '#contract/routes.ts';
import { NoQuery, noQueryParams } from '#contract/schemas/query.ts';
import { TestWebhookBody } from '#contract/schemas/webhook-requests.ts';
import { queueTest } from '#db/queries/webhook-deliveries.ts';
import { type Deps, lambda } from '../deps.ts';
import { parseOptionalJsonBody } from '../http/body.ts';
import { noSuch, pathParam } from '../http/path.ts';
import { parseQuery } from '../http/query.ts';
import { jsonText } from '../http/respond.ts';
import { route } from '../http/route.ts';

/** POST /webhook-endpoints/{endpointId}/test: 202, the delivery queued (sent as any other). */
export const build = (deps: Deps) =>
  route(routes.testWebhookEndpoint, deps, async (req) => {
    const endpointId = pathParam(req.event, 'endpointId', 'webhook endpoint');
    parseQuery(NoQuery, noQueryParams, req.event);
    const body = parseOptionalJsonBody(TestWebhookBody, req.event);
    const item = await queueTest(req.runner, req.caller, endpointId, body.eventType);
    if (!item) throw noSuch('webhook endpoint');
    return jsonText(req.requestId, 202, item);
  });

export const handler = lambda(build);
