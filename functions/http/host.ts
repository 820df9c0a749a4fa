// A DNS name or IPv4 address, or a bracketed IPv6 literal, with an optional port: nothing a
// header could smuggle into a URL (`>`, spaces, quotes, `@`, `/`).
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const HOST = new RegExp(`^(?:${LABEL}(?:\\.${LABEL})*\\.?|\\[[0-9A-Fa-f:.]+\\])(?::\\d{1,5})?$`);

/** A `Host` value safe to put in an absolute URL. */
export const isValidHost = (host: string | undefined): host is string =>
  host !== undefined && host.length <= 260 && HOST.test(host);
