import { routes } from '#contract/routes.ts';
import { EmptyBody } from '#contract/schemas/common.ts';
import { noQuery } from '#contract/schemas/query.ts';
import { archiveAgent } from '#db/queries/agent-changes.ts';
import { type Deps, lambda } from '../deps.ts';
import { matchingTags, optionalIfMatch } from '../http/etag.ts';
import { route } from '../http/route.ts';
import { answerChange, changeOf } from './change.ts';

/** POST /agents/{agentId}/archive: no fields (no body, or `{}`); repeated, it changes nothing and answers the agent again. */
export const build = (deps: Deps) =>
  route(
    { ...routes.archiveAgent, query: noQuery, body: EmptyBody, bodyOptional: true },
    deps,
    async (req) => {
      const of = changeOf(req, req.params.agentId, matchingTags(optionalIfMatch(req.event)));
      return answerChange(req, await archiveAgent(req.runner, of), { what: 'archive' });
    },
  );

export const handler = lambda(build);
