import { sweepStaleSessions } from '#db/queries/session-writes.ts';
import { type Deps, lambda } from '../deps.ts';

/**
 * The stale-session sweep, run on a schedule (an EventBridge rule in AWS, an interval under
 * `npm start`): completes the sessions the runtime stopped reporting on. Safe to run twice at once
 * or again after a failure: a session it completed no longer matches.
 */
export const build = (deps: Deps) => async (_event?: unknown) => {
  const swept = await deps.database.run(sweepStaleSessions, { repeatable: true });
  deps.logger('info', 'stale sessions swept', { swept });
  return { swept };
};

export const handler = lambda(build);
