import { routes } from '#contract/routes.ts';
import { noQuery } from '#contract/schemas/query.ts';
import { RotateWebhookSecretBody } from '#contract/schemas/webhook-requests.ts';
import { rotateSecret } from '#db/queries/webhook-endpoints.ts';
import { lambda } from '../deps.ts';
import { noSuch } from '../http/path.ts';
import { jsonText } from '../http/respond.ts';
import { route } from '../http/route.ts';
import { boxOf, type WebhookDeps } from './common.ts';
import { newSecret } from './signature.ts';

/** POST /webhook-endpoints/{endpointId}/secret/rotate: answers the new secret, once. */
export const build = (deps: WebhookDeps) =>
  route(
    { ...routes.rotateWebhookSecret, query: noQuery, body: RotateWebhookSecretBody, bodyOptional: true },
    deps,
    async (req) => {
      const { endpointId } = req.params;
      const secret = newSecret();
      const sealed = (await boxOf(deps)).seal(secret, endpointId);
      const rotated = await rotateSecret(
        req.runner,
        req.caller,
        endpointId,
        sealed,
        req.body.gracePeriodSeconds,
        req.caller.principalId,
      );
      if (!rotated) throw noSuch('webhook endpoint');
      const withSecret = `${rotated.item.slice(0, -1)},"secret":${JSON.stringify(secret)}}`;
      return jsonText(req.requestId, 200, withSecret, { etag: rotated.etag });
    },
  );

export const handler = lambda(build);
