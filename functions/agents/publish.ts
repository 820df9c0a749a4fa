import { routes } from '#contract/routes.ts';
import { noQuery } from '#contract/schemas/query.ts';
import { PublishAgentBody } from '#contract/schemas/requests.ts';
import { publishAgent } from '#db/queries/agent-changes.ts';
import { type Deps, lambda } from '../deps.ts';
import { matchingTags, optionalIfMatch } from '../http/etag.ts';
import { route } from '../http/route.ts';
import { answerChange, changeOf } from './change.ts';

/** POST /agents/{agentId}/publish */
export const build = (deps: Deps) =>
  route({ ...routes.publishAgent, query: noQuery, body: PublishAgentBody }, deps, async (req) => {
    const of = changeOf(req, req.params.agentId, matchingTags(optionalIfMatch(req.event)));
    return answerChange(req, await publishAgent(req.runner, of, req.body.versionId), { what: 'publishing' });
  });

export const handler = lambda(build);
