import { routes } from '#contract/routes.ts';
import { NoQuery, noQueryParams } from '#contract/schemas/query.ts';
import { RotateWebhookSecretBody } from '#contract/schemas/webhook-requests.ts';
import { rotateSecret } from '#db/queries/webhook-endpoints.ts';
import { lambda } from '../deps.ts';
import { parseOptionalJsonBody } from '../http/body.ts';
import { noSuch, pathParam } from '../http/path.ts';
import { parseQuery } from '../http/query.ts';
import { jsonText } from '../http/respond.ts';
import { route } from '../http/route.ts';
import { boxOf, type WebhookDeps } from './common.ts';
import { newSecret } from './signature.ts';

/** POST /webhook-endpoints/{endpointId}/secret/rotate: answers the new secret, once. */
export const build = (deps: WebhookDeps) =>
  route(routes.rotateWebhookSecret, deps, async (req) => {
    const endpointId = pathParam(req.event, 'endpointId', 'webhook endpoint');
    parseQuery(NoQuery, noQueryParams, req.event);
    const body = parseOptionalJsonBody(RotateWebhookSecretBody, req.event);
    const secret = newSecret();
    const sealed = boxOf(deps).seal(secret, endpointId);
    const rotated = await rotateSecret(
      req.runner,
      req.caller,
      endpointId,
      sealed,
      body.gracePeriodSeconds,
      req.caller.principalId,
    );
    if (!rotated) throw noSuch('webhook endpoint');
    const withSecret = `${rotated.item.slice(0, -1)},"secret":${JSON.stringify(secret)}}`;
    return jsonText(req.requestId, 200, withSecret, { etag: rotated.etag });
  });

export const handler = lambda(build);
