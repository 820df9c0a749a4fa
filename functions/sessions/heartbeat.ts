import { routes } from '#contract/routes.ts';
import { EmptyBody } from '#contract/schemas/common.ts';
import { noQuery } from '#contract/schemas/query.ts';
import { heartbeatSession } from '#db/queries/session-writes.ts';
import { type Deps, lambda } from '../deps.ts';
import { noSuch } from '../http/path.ts';
import { baseHeaders } from '../http/respond.ts';
import { route } from '../http/route.ts';
import { illegalTransition } from './transition.ts';

/** POST /sessions/{sessionId}/heartbeat: the hot write, one statement, no body in the answer. */
export const build = (deps: Deps) =>
  route(
    { ...routes.heartbeatSession, query: noQuery, body: EmptyBody, bodyOptional: true },
    deps,
    async (req) => {
      const outcome = await heartbeatSession(req.runner, req.caller, req.params.sessionId);
      if (outcome.kind === 'missing') throw noSuch('session');
      if (outcome.kind === 'illegal') throw illegalTransition('sent a heartbeat', outcome.status);
      return {
        statusCode: 204,
        headers: { ...baseHeaders(req.requestId), 'last-heartbeat-at': outcome.at },
        body: '',
      };
    },
  );

export const handler = lambda(build);
