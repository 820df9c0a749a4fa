import { sweepStaleSessions } from '#db/queries/session-writes.ts';
import { type Deps, lambda } from '../deps.ts';
import { PURGE_LIMITS, type PurgeLimits, purgeExpiredEvents } from '../events/purge.ts';

/**
 * The scheduled housekeeping (an EventBridge rule in AWS, `npm run sessions:sweep` by hand): the
 * stale-session sweep completes the sessions the runtime stopped reporting on, then the event purge
 * deletes the published events past the retention window (functions/events/purge.ts). Safe to run
 * twice at once or again after a failure: a session it completed no longer matches, a purged event
 * is gone, and two purges skip each other's rows.
 */
export const build =
  (deps: Deps, purge: PurgeLimits = PURGE_LIMITS) =>
  async (_event?: unknown) => {
    const swept = await deps.database.run(sweepStaleSessions, { repeatable: true });
    const { purged, more } = await purgeExpiredEvents(deps, purge);
    deps.logger('info', 'stale sessions swept, expired events purged', { swept, purged, more });
    return { swept, purged };
  };

export const handler = lambda(build);
