import { routes } from '#contract/routes.ts';
import { NoQuery, noQueryParams } from '#contract/schemas/query.ts';
import { PublishAgentBody } from '#contract/schemas/requests.ts';
import { publishAgent } from '#db/queries/agent-changes.ts';
import { type Deps, lambda } from '../deps.ts';
import { parseJsonBody } from '../http/body.ts';
import { matchingTags, optionalIfMatch } from '../http/etag.ts';
import { pathParam } from '../http/path.ts';
import { parseQuery } from '../http/query.ts';
import { route } from '../http/route.ts';
import { answerChange, changeOf } from './change.ts';

/** POST /agents/{agentId}/publish */
export const build = (deps: Deps) =>
  route(routes.publishAgent, deps, async (req) => {
    const agentId = pathParam(req.event, 'agentId', 'agent');
    parseQuery(NoQuery, noQueryParams, req.event);
    const { versionId } = parseJsonBody(PublishAgentBody, req.event);
    const of = changeOf(req, agentId, matchingTags(optionalIfMatch(req.event)));
    return answerChange(req, await publishAgent(req.runner, of, versionId), { what: 'publishing' });
  });

export const handler = lambda(build);
