import { routes } from '#contract/routes.ts';
import { eventDataExamples } from '#contract/schemas/event-examples.ts';
import { noQuery } from '#contract/schemas/query.ts';
import { TestWebhookBody } from '#contract/schemas/webhook-requests.ts';
import { queueTest } from '#db/queries/webhook-deliveries.ts';
import { type Deps, lambda } from '../deps.ts';
import { noSuch } from '../http/path.ts';
import { jsonText } from '../http/respond.ts';
import { route } from '../http/route.ts';

/** POST /webhook-endpoints/{endpointId}/test: 202, the type's example queued (sent as any other). */
export const build = (deps: Deps) =>
  route(
    { ...routes.testWebhookEndpoint, query: noQuery, body: TestWebhookBody, bodyOptional: true },
    deps,
    async (req) => {
      const { eventType } = req.body;
      const item = await queueTest(
        req.runner,
        req.caller,
        req.params.endpointId,
        eventType,
        eventDataExamples[eventType],
      );
      if (!item) throw noSuch('webhook endpoint');
      return jsonText(req.requestId, 202, item);
    },
  );

export const handler = lambda(build);
