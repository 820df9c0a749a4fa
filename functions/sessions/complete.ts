import { routes } from '#contract/routes.ts';
import { noQuery } from '#contract/schemas/query.ts';
import { CompleteSessionBody } from '#contract/schemas/session-requests.ts';
import { completeSession } from '#db/queries/complete-session.ts';
import { type Deps, lambda } from '../deps.ts';
import { route } from '../http/route.ts';
import { answer } from './transition.ts';

/** POST /sessions/{sessionId}/complete */
export const build = (deps: Deps) =>
  route(
    { ...routes.completeSession, query: noQuery, body: CompleteSessionBody, bodyOptional: true },
    deps,
    async (req) => {
      const completion = { ...req.body, principalId: req.caller.principalId };
      const outcome = await req.runner.transaction((tx) =>
        completeSession(tx, req.caller, req.params.sessionId, completion),
      );
      return answer(req.requestId, 'completed', outcome);
    },
  );

export const handler = lambda(build);
