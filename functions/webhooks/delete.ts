import { routes } from '#contract/routes.ts';
import { noQuery } from '#contract/schemas/query.ts';
import { deleteEndpoint } from '#db/queries/webhook-endpoints.ts';
import { type Deps, lambda } from '../deps.ts';
import { matchingTags, requiredIfMatch } from '../http/etag.ts';
import { noSuch } from '../http/path.ts';
import { preconditionFailed } from '../http/problem.ts';
import { baseHeaders } from '../http/respond.ts';
import { route } from '../http/route.ts';

/** DELETE /webhook-endpoints/{endpointId}: If-Match required; its deliveries and attempts go too. */
export const build = (deps: Deps) =>
  route({ ...routes.deleteWebhookEndpoint, query: noQuery }, deps, async (req) => {
    const condition = requiredIfMatch(req.event, 'the webhook endpoint');
    const outcome = await deleteEndpoint(
      req.runner,
      req.caller,
      req.params.endpointId,
      matchingTags(condition),
    );
    if (outcome === 'missing') throw noSuch('webhook endpoint');
    if (outcome === 'stale') throw preconditionFailed('If-Match names none of the endpoint’s current ETag.');
    return { statusCode: 204, headers: baseHeaders(req.requestId), body: '' };
  });

export const handler = lambda(build);
