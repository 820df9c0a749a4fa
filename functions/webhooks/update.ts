import { routes } from '#contract/routes.ts';
import { noQuery } from '#contract/schemas/query.ts';
import { UpdateWebhookEndpointBody } from '#contract/schemas/webhook-requests.ts';
import { updateEndpoint } from '#db/queries/webhook-endpoints.ts';
import { lambda } from '../deps.ts';
import { matchingTags, requiredIfMatch } from '../http/etag.ts';
import { noSuch } from '../http/path.ts';
import { preconditionFailed } from '../http/problem.ts';
import { jsonText } from '../http/respond.ts';
import { route } from '../http/route.ts';
import { allowLoopbackOf, checkedUrl, type WebhookDeps } from './common.ts';

/** PATCH /webhook-endpoints/{endpointId}: If-Match required. */
export const build = (deps: WebhookDeps) =>
  route(
    { ...routes.updateWebhookEndpoint, query: noQuery, body: UpdateWebhookEndpointBody },
    deps,
    async (req) => {
      const { body } = req;
      const condition = requiredIfMatch(req.event, 'the webhook endpoint');
      if (body.url !== undefined) checkedUrl(body.url, allowLoopbackOf(deps));
      const outcome = await updateEndpoint(
        req.runner,
        req.caller,
        req.params.endpointId,
        matchingTags(condition),
        {
          ...body,
          principalId: req.caller.principalId,
        },
      );
      if (outcome.kind === 'missing') throw noSuch('webhook endpoint');
      if (outcome.kind === 'stale')
        throw preconditionFailed('If-Match names none of the endpoint’s current ETag.');
      return jsonText(req.requestId, 200, outcome.answer.item, { etag: outcome.answer.etag });
    },
  );

export const handler = lambda(build);
