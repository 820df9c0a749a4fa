import { routes } from '#contract/routes.ts';
import { noQuery } from '#contract/schemas/query.ts';
import { RecoverWebhookBody } from '#contract/schemas/webhook-requests.ts';
import { recoverWindow } from '#db/queries/webhook-deliveries.ts';
import { type Deps, lambda } from '../deps.ts';
import { noSuch } from '../http/path.ts';
import { json } from '../http/respond.ts';
import { route } from '../http/route.ts';

/** POST /webhook-endpoints/{endpointId}/recover: 202 and how many deliveries were queued. */
export const build = (deps: Deps) =>
  route({ ...routes.recoverWebhookEvents, query: noQuery, body: RecoverWebhookBody }, deps, async (req) => {
    const { since, until } = req.body;
    const queued = await recoverWindow(req.runner, req.caller, req.params.endpointId, since, until);
    if (queued === undefined) throw noSuch('webhook endpoint');
    return json(req.requestId, 202, { queued });
  });

export const handler = lambda(build);
