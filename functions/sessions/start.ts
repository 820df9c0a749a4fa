import { routes } from '#contract/routes.ts';
import { EmptyBody } from '#contract/schemas/common.ts';
import { noQuery } from '#contract/schemas/query.ts';
import { startSession } from '#db/queries/session-writes.ts';
import { type Deps, lambda } from '../deps.ts';
import { route } from '../http/route.ts';
import { requireCredit } from '../ledger/admission.ts';
import { answer } from './transition.ts';

/** POST /sessions/{sessionId}/start */
export const build = (deps: Deps) =>
  route(
    { ...routes.startSession, query: noQuery, body: EmptyBody, bodyOptional: true },
    deps,
    async (req) => {
      const outcome = await req.runner.transaction(async (tx) => {
        const started = await startSession(tx, req.caller, req.params.sessionId);
        if (started.kind === 'done') await requireCredit(tx, req.caller.workspaceId);
        return started;
      });
      return answer(req.requestId, 'started', outcome);
    },
  );

export const handler = lambda(build);
