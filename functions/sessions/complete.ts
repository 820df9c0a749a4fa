import { routes } from '#contract/routes.ts';
import { NoQuery, noQueryParams } from '#contract/schemas/query.ts';
import { CompleteSessionBody } from '#contract/schemas/session-requests.ts';
import { completeSession } from '#db/queries/complete-session.ts';
import { type Deps, lambda } from '../deps.ts';
import { parseOptionalJsonBody } from '../http/body.ts';
import { pathParam } from '../http/path.ts';
import { parseQuery } from '../http/query.ts';
import { route } from '../http/route.ts';
import { answer } from './transition.ts';

/** POST /sessions/{sessionId}/complete */
export const build = (deps: Deps) =>
  route(routes.completeSession, deps, async (req) => {
    const sessionId = pathParam(req.event, 'sessionId', 'session');
    parseQuery(NoQuery, noQueryParams, req.event);
    const body = parseOptionalJsonBody(CompleteSessionBody, req.event);
    const completion = { ...body, principalId: req.caller.principalId };
    const outcome = await req.runner.transaction((tx) =>
      completeSession(tx, req.caller, sessionId, completion),
    );
    return answer(req.requestId, 'completed', outcome);
  });

export const handler = lambda(build);
