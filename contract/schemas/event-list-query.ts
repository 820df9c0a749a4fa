import * as v from 'valibot';
import { eventTypes } from '../enums.ts';
import { atMost, choiceOf } from './common.ts';
import { integerParam, listParam, type QueryParam, routeQuery, textParam } from './query.ts';

// Apart from the events' own schemas (event.ts), which GET /events's bundle then never builds.

/** GET /events: the feed from a cursor, of some types. */
export const eventListParams = {
  cursor: textParam(
    v.pipe(v.string(), atMost(1024)),
    'Where to continue: `X-Next-Cursor` (or `Link: rel="next"`) of the previous answer; empty or absent starts at the oldest event kept.',
  ),
  type: listParam(choiceOf(eventTypes), 'Only events of these types.'),
  limit: integerParam(1, 250, 'Events per page.', 100),
} satisfies Record<string, QueryParam>;
export const eventListQuery = routeQuery(eventListParams);
