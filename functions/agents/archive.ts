import { routes } from '#contract/routes.ts';
import { EmptyBody } from '#contract/schemas/common.ts';
import { NoQuery, noQueryParams } from '#contract/schemas/query.ts';
import { archiveAgent } from '#db/queries/agent-changes.ts';
import { type Deps, lambda } from '../deps.ts';
import { parseOptionalJsonBody } from '../http/body.ts';
import { matchingTags, optionalIfMatch } from '../http/etag.ts';
import { pathParam } from '../http/path.ts';
import { parseQuery } from '../http/query.ts';
import { route } from '../http/route.ts';
import { answerChange, changeOf } from './change.ts';

/** POST /agents/{agentId}/archive: no fields (no body, or `{}`); repeated, it changes nothing and answers the agent again. */
export const build = (deps: Deps) =>
  route(routes.archiveAgent, deps, async (req) => {
    const agentId = pathParam(req.event, 'agentId', 'agent');
    parseQuery(NoQuery, noQueryParams, req.event);
    parseOptionalJsonBody(EmptyBody, req.event);
    const of = changeOf(req, agentId, matchingTags(optionalIfMatch(req.event)));
    return answerChange(req, await archiveAgent(req.runner, of), { what: 'archive' });
  });

export const handler = lambda(build);
