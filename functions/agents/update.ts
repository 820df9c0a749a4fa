import { routes } from '#contract/routes.ts';
import { NoQuery, noQueryParams } from '#contract/schemas/query.ts';
import { UpdateAgentBody } from '#contract/schemas/requests.ts';
import { updateAgent } from '#db/queries/agent-changes.ts';
import { SlugTaken } from '#db/queries/create-agent.ts';
import { type Deps, lambda } from '../deps.ts';
import { parseJsonBody } from '../http/body.ts';
import { matchingTags, requiredIfMatch } from '../http/etag.ts';
import { pathParam } from '../http/path.ts';
import { parseQuery } from '../http/query.ts';
import { route } from '../http/route.ts';
import { answerChange, changeOf } from './change.ts';
import { slugTaken } from './slug.ts';

// RFC 7396's media type; plain JSON means the same here (every member is a scalar).
const PATCH_TYPES = ['application/merge-patch+json', 'application/json'];

/** PATCH /agents/{agentId} */
export const build = (deps: Deps) =>
  route(routes.updateAgent, deps, async (req) => {
    const agentId = pathParam(req.event, 'agentId', 'agent');
    parseQuery(NoQuery, noQueryParams, req.event);
    const edit = parseJsonBody(UpdateAgentBody, req.event, PATCH_TYPES);
    const of = changeOf(req, agentId, matchingTags(requiredIfMatch(req.event, 'an agent')));
    try {
      return answerChange(req, await updateAgent(req.runner, of, edit), { what: 'a change' });
    } catch (error) {
      throw error instanceof SlugTaken ? slugTaken(error.slug) : error;
    }
  });

export const handler = lambda(build);
