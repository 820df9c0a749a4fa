import { routes } from '#contract/routes.ts';
import { eventListQuery } from '#contract/schemas/event-list-query.ts';
import { pageEvents } from '#db/queries/events.ts';
import { type Deps, lambda } from '../deps.ts';
import { decodeFeedCursor, encodeFeedCursor } from '../http/cursor.ts';
import { nextLink } from '../http/pagination.ts';
import { json } from '../http/respond.ts';
import { route } from '../http/route.ts';

/** GET /events */
export const build = (deps: Deps) =>
  route({ ...routes.listEvents, query: eventListQuery }, deps, async (req) => {
    const { query } = req;
    const { workspaceId } = req.caller;
    const after = decodeFeedCursor(query.cursor ?? '', workspaceId);
    const page = await pageEvents(req.runner, req.caller, after, query.type ?? null, query.limit);
    const next = encodeFeedCursor(page.last ?? after, workspaceId);
    return json(req.requestId, 200, page.events, {
      // Always: where a poller continues, even from an empty page.
      'x-next-cursor': next,
      ...(page.more ? { link: nextLink(req.event, { cursor: next }) } : {}),
    });
  });

export const handler = lambda(build);
