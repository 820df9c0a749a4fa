import * as v from 'valibot';
import { eventTypes } from '../enums.ts';
import { atMost, choiceOf, FreeFormObject, Id, Timestamp } from './common.ts';
import { integerParam, listParam, type QueryParam, queryObject, textParam } from './query.ts';

/**
 * An event as it leaves the system (GET /events, the EventBridge bus, and later signed webhooks):
 * a stable `id` to deduplicate by, what happened, when, in which workspace, and its `data`.
 */
export const Event = v.strictObject({
  id: v.pipe(v.string(), v.uuid()),
  type: v.picklist(eventTypes),
  occurredAt: Timestamp,
  workspaceId: Id,
  data: FreeFormObject,
});
export const EventList = v.array(Event);
export type Event = v.InferOutput<typeof Event>;

/** GET /events: the feed from a cursor, of some types. */
export const eventListParams = {
  cursor: textParam(
    v.pipe(v.string(), atMost(1024)),
    'Where to continue: `X-Next-Cursor` (or `Link: rel="next"`) of the previous answer; empty or absent starts at the oldest event kept.',
  ),
  type: listParam(choiceOf(eventTypes), 'Only events of these types.'),
  limit: integerParam(1, 250, 'Events per page.', 100),
} satisfies Record<string, QueryParam>;
export const EventListQuery = queryObject(eventListParams);
