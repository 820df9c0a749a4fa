import { OFFSET_MAX } from '#contract/limits.ts';
import type { JsonText } from '#db/queries/json-text.ts';
import type { ListWindow } from '#db/queries/list-window.ts';
import { fingerprint } from './canonical.ts';
import { decodeCursor, encodeCursor, type Position } from './cursor.ts';
import { urlOfRequest } from './host.ts';
import { jsonText } from './respond.ts';
import { type ApiEvent, type ApiResult, queryPairs } from './types.ts';

/** The paging parameters every list accepts; everything else in a list query is a filter. */
export interface PagingQuery {
  limit: number;
  offset?: number;
  cursor?: string;
  order: 'asc' | 'desc';
  includeTotal?: boolean;
}

export interface ListRequest<F> {
  window: ListWindow;
  filters: F;
  /** Cursor paging was asked for (`cursor` present, even empty). */
  byCursor: boolean;
  /** What a cursor is bound to: this workspace, list, order and these filters. */
  binding: string;
}

/**
 * Splits a parsed list query into the window to read and the filters, resolving the cursor, which
 * is bound to this list (`agents`, `sessions`) in the caller's workspace: a position in one list
 * means nothing in another.
 */
export function listRequest<Q extends PagingQuery>(
  query: Q,
  list: string,
  workspaceId: string,
): ListRequest<Omit<Q, keyof PagingQuery>> {
  const { limit, offset, cursor, order, includeTotal: _, ...filters } = query;
  // Hashed only when a cursor is read or written: most list requests page by offset.
  let binding: string | undefined;
  const bound = () => {
    binding ??= fingerprint({ workspaceId, list, order, filters }).slice(0, 32);
    return binding;
  };
  const after = cursor === undefined ? undefined : decodeCursor(cursor, bound());
  return {
    window: { limit, offset: offset ?? 0, order, after },
    filters,
    byCursor: cursor !== undefined,
    get binding() {
      return bound();
    },
  };
}

/**
 * 200 with the page as a bare array (the spec's shape); `Link: rel="next"` (RFC 8288) while another
 * page exists — by cursor if the request paged by cursor or the next offset would pass OFFSET_MAX
 * (which the query refuses), else by offset — and `X-Total-Count`
 * when a total was asked for. The items are JSON text (`limit + 1` of them when another page
 * follows) and are joined, not parsed and serialised again; only the last item of a page that
 * needs a cursor is parsed, for its position.
 */
export function listResponse<T extends Position>(
  req: { event: ApiEvent; requestId: string },
  list: ListRequest<unknown>,
  rows: JsonText<T>[],
  total?: number,
): ApiResult {
  const { limit, offset } = list.window;
  const items = rows.length > limit ? rows.slice(0, limit) : rows;
  const last = items.at(-1);
  const headers: Record<string, string> = {};
  if (rows.length > limit && last !== undefined) {
    headers.link =
      list.byCursor || offset + limit > OFFSET_MAX
        ? nextLink(req.event, { cursor: encodeCursor(positionOf(last), list.binding) }, ['offset'])
        : nextLink(req.event, { limit, offset: offset + limit });
  }
  if (total !== undefined) headers['x-total-count'] = String(total);
  return jsonText(req.requestId, 200, jsonArray(items), headers);
}

/** Where an item sits in its list (`createdAt`, `id`), from its JSON text. */
function positionOf(item: JsonText<Position>): Position {
  const { createdAt, id } = JSON.parse(item) as Position;
  return { createdAt, id };
}

/** The URL of the next page: this request's (urlOfRequest), with `next` replacing those parameters and `drop` gone. */
export function nextLink(
  event: ApiEvent,
  next: Record<string, string | number>,
  drop: readonly string[] = [],
): string {
  const params = queryPairs(event);
  for (const name of drop) params.delete(name);
  for (const [name, value] of Object.entries(next)) params.set(name, String(value));
  return `<${urlOfRequest(event, `?${params.toString()}`)}>; rel="next"`;
}

/**
 * `[a,b,…]` as one flat string: the brackets go on the first and last item (small strings), so the
 * page is copied once, by `join`. `[${items.join(',')}]` makes a rope that is flattened again,
 * into a second page-sized string, by whatever reads it next.
 */
function jsonArray(items: readonly string[]): string {
  const n = items.length;
  if (n === 0) return '[]';
  if (n === 1) return `[${items[0]}]`;
  const parts = items.slice();
  parts[0] = `[${parts[0]}`;
  parts[n - 1] = `${parts[n - 1]}]`;
  return parts.join(',');
}
