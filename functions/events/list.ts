import { createHash } from 'node:crypto';
import { routes } from '#contract/routes.ts';
import { EventListQuery, eventListParams } from '#contract/schemas/event-list-query.ts';
import { type FeedPosition, pageEvents } from '#db/queries/events.ts';
import { type Deps, lambda } from '../deps.ts';
import { nextLink } from '../http/pagination.ts';
import { validationFailed } from '../http/problem.ts';
import { parseQuery } from '../http/query.ts';
import { json } from '../http/respond.ts';
import { route } from '../http/route.ts';

/** GET /events */
export const build = (deps: Deps) =>
  route(routes.listEvents, deps, async (req) => {
    const query = parseQuery(EventListQuery, eventListParams, req.event);
    const after = decodeFeedCursor(query.cursor ?? '');
    const page = await pageEvents(req.runner, req.caller, after, query.type ?? null, query.limit);
    const next = encodeFeedCursor(page.last ?? after);
    return json(req.requestId, 200, page.events, {
      // Always: where a poller continues, even from an empty page.
      'x-next-cursor': next,
      ...(page.more ? { link: nextLink(req.event, { cursor: next }) } : {}),
    });
  });

export const handler = lambda(build);

const checksum = (payload: string) =>
  createHash('sha256').update(`feed.v1.${payload}`).digest('base64url').slice(0, 12);

/**
 * A feed position as an opaque cursor (not a secret: a forged one only starts the caller's own feed
 * elsewhere). Not bound to the type filter: a position in the feed means the same for any filter.
 */
export function encodeFeedCursor(position: FeedPosition | null): string {
  if (!position) return '';
  const text = Buffer.from(`${position.txid}.${position.seq}`).toString('base64url');
  return `${text}.${checksum(text)}`;
}

export function decodeFeedCursor(text: string): FeedPosition | null {
  if (text === '') return null;
  const [payload, sum, ...rest] = text.split('.');
  const match = /^(\d{1,15})\.(\d{1,15})$/.exec(Buffer.from(payload ?? '', 'base64url').toString('utf8'));
  if (!payload || !sum || rest.length > 0 || checksum(payload) !== sum || !match) {
    const message = 'is not a cursor this API issued, or was altered';
    throw validationFailed(`The cursor is invalid: ${message}.`, [{ path: 'cursor', message }]);
  }
  return { txid: Number(match[1]), seq: Number(match[2]) };
}
