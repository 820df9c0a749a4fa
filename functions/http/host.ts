import { type ApiEvent, headerOf } from './types.ts';

// A DNS name or IPv4 address, or a bracketed IPv6 literal, with an optional port: nothing a
// header could smuggle into a URL (`>`, spaces, quotes, `@`, `/`).
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const HOST = new RegExp(`^(?:${LABEL}(?:\\.${LABEL})*\\.?|\\[[0-9A-Fa-f:.]+\\])(?::\\d{1,5})?$`);

/** A `Host` value safe to put in an absolute URL. */
export const isValidHost = (host: string | undefined): host is string =>
  host !== undefined && host.length <= 260 && HOST.test(host);

/**
 * A URL on this API: the path the client called (`requestContext.path`, with the stage on an
 * execute-api domain or the base path on a custom one) plus `suffix`, on the API's own domain
 * (`requestContext.domainName`, never the client's `Host`). Absolute when the domain is a valid
 * host, else relative to the request.
 */
export function urlOfRequest(event: ApiEvent, suffix = ''): string {
  const proto = headerOf(event.headers, 'x-forwarded-proto') === 'http' ? 'http' : 'https';
  const host = event.requestContext?.domainName;
  const origin = isValidHost(host) ? `${proto}://${host}` : '';
  return `${origin}${event.requestContext?.path ?? event.path}${suffix}`;
}

/** `Location` of what a POST to a collection created: the collection's URL and the new id. */
export const locationOf = (event: ApiEvent, id: string) => ({
  location: urlOfRequest(event, `/${encodeURIComponent(id)}`),
});
