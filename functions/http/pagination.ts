import { json } from './respond.ts';
import type { ApiEvent, ApiResult } from './types.ts';

export interface Page<T> {
  items: T[];
  /** Another page exists after this one (the query fetched `limit + 1` rows). */
  hasMore: boolean;
}

/** Splits a `limit + 1` fetch into the page and whether more follow. */
export function toPage<T>(rows: T[], limit: number): Page<T> {
  return { items: rows.slice(0, limit), hasMore: rows.length > limit };
}

/**
 * RFC 8288 `Link: <…>; rel="next"` for the page after this one, keeping every other query
 * parameter as the client sent it. Absolute, built from the host the client called.
 */
export function nextLink(event: ApiEvent, next: Record<string, string | number>): string {
  const params = new URLSearchParams(event.rawQueryString ?? '');
  for (const [name, value] of Object.entries(next)) params.set(name, String(value));
  const proto = event.headers?.['x-forwarded-proto'] ?? 'https';
  const host = event.requestContext?.domainName ?? event.headers?.host ?? 'localhost';
  return `<${proto}://${host}${event.rawPath}?${params.toString()}>; rel="next"`;
}

/** 200 with the page as a bare array, and a `Link` to the next page when there is one. */
export function pageResponse<T>(
  req: { event: ApiEvent; requestId: string },
  query: { limit: number; offset: number },
  rows: T[],
): ApiResult {
  const page = toPage(rows, query.limit);
  const headers = page.hasMore
    ? { link: nextLink(req.event, { limit: query.limit, offset: query.offset + query.limit }) }
    : undefined;
  return json(req.requestId, 200, page.items, headers);
}
