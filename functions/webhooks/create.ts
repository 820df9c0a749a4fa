import { routes } from '#contract/routes.ts';
import { noQuery } from '#contract/schemas/query.ts';
import { CreateWebhookEndpointBody } from '#contract/schemas/webhook-requests.ts';
import type { SqlRunner } from '#db/database.ts';
import { idMaker } from '#db/queries/ids.ts';
import { createEndpoint } from '#db/queries/webhook-endpoints.ts';
import { lambda } from '../deps.ts';
import { locationOf } from '../http/host.ts';
import { idempotencyKeyOf, idempotent } from '../http/idempotency.ts';
import { jsonText } from '../http/respond.ts';
import { route } from '../http/route.ts';
import { allowLoopbackOf, boxOf, checkedUrl, type WebhookDeps } from './common.ts';
import { newSecret } from './signature.ts';

/**
 * POST /webhook-endpoints. The secret is added to this answer only, after the idempotency record
 * was stored: a replay under the same Idempotency-Key answers the endpoint without it (rotate for
 * a new one), so no secret is ever kept in clear.
 */
export const build = (deps: WebhookDeps) =>
  route(
    { ...routes.createWebhookEndpoint, query: noQuery, body: CreateWebhookEndpointBody },
    deps,
    async (req) => {
      const { body } = req;
      const url = checkedUrl(body.url, allowLoopbackOf(deps));
      const box = await boxOf(deps);
      let secret: string | undefined;
      const create = async (sql: SqlRunner) => {
        const id = (await idMaker())();
        secret = newSecret();
        const { item, etag } = await createEndpoint(sql, req.caller, {
          ...body,
          id,
          url,
          secretSealed: box.seal(secret, id),
          principalId: req.caller.principalId,
        });
        return jsonText(req.requestId, 201, item, { etag, ...locationOf(req.event, id) });
      };
      const key = idempotencyKeyOf(req);
      const answer = await (key ? idempotent(deps.database, req, key, body, create) : create(req.runner));
      if (answer.statusCode !== 201 || secret === undefined) return answer;
      return { ...answer, body: `${answer.body.slice(0, -1)},"secret":${JSON.stringify(secret)}}` };
    },
  );

export const handler = lambda(build);
