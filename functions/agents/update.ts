import { routes } from '#contract/routes.ts';
import { noQuery } from '#contract/schemas/query.ts';
import { UpdateAgentBody } from '#contract/schemas/requests.ts';
import { updateAgent } from '#db/queries/agent-changes.ts';
import { SlugTaken } from '#db/queries/create-agent.ts';
import { type Deps, lambda } from '../deps.ts';
import { matchingTags, requiredIfMatch } from '../http/etag.ts';
import { route } from '../http/route.ts';
import { answerChange, changeOf } from './change.ts';
import { slugTaken } from './slug.ts';

// RFC 7396's media type; plain JSON means the same here (every member is a scalar).
const PATCH_TYPES = ['application/merge-patch+json', 'application/json'];

/** PATCH /agents/{agentId} */
export const build = (deps: Deps) =>
  route(
    { ...routes.updateAgent, query: noQuery, body: UpdateAgentBody, mediaTypes: PATCH_TYPES },
    deps,
    async (req) => {
      const of = changeOf(req, req.params.agentId, matchingTags(requiredIfMatch(req.event, 'an agent')));
      try {
        return answerChange(req, await updateAgent(req.runner, of, req.body), { what: 'a change' });
      } catch (error) {
        throw error instanceof SlugTaken ? slugTaken(error.slug) : error;
      }
    },
  );

export const handler = lambda(build);
