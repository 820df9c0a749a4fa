import { isUtf8 } from 'node:buffer';
import { randomBytes } from 'node:crypto';
import type { APIGatewayEventRequestContextV2 } from 'aws-lambda';
import type { ApiEvent, AuthorizerEvent } from '#functions/http/types.ts';

/** What the gateway knows about one HTTP request once its body is read. */
export interface IncomingRequest {
  method: string;
  /** The request target as sent: `/path?query`. */
  target: string;
  /** Node's `rawHeaders`: name, value, name, value… in the order received. */
  rawHeaders: readonly string[];
  body: Buffer | undefined;
  httpVersion: string;
  remoteAddress: string | undefined;
  localPort: number;
}

export const ACCOUNT_ID = '000000000000';
export const API_ID = 'local';
const REGION = process.env.AWS_REGION ?? 'us-east-1';

/** API Gateway's ids look like `JKJaXmPLvHcESHA=`: 11 random bytes in base64. */
export const newRequestId = () => randomBytes(11).toString('base64');

// Hop-by-hop headers end at the gateway; the function never sees them.
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'transfer-encoding',
  'upgrade',
]);

/** Every escape decoded except `%25`, as the HTTP API builds `rawPath` (so `%2525` stays `%2525`). */
export function decodePath(raw: string): string {
  return raw.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) =>
    run
      .split(/(?=%25)|(?<=%25)/i)
      .map((part) =>
        /^%25$/i.test(part) ? part : Buffer.from(part.replace(/%/g, ''), 'hex').toString('utf8'),
      )
      .join(''),
  );
}

/** Path and query exactly as sent; an absolute-form target (`http://host/p`) is cut to its path. */
export function splitTarget(target: string): { rawPath: string; rawQueryString: string } {
  const origin = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(target)?.[0] ?? '';
  const rest = target.slice(origin.length).split('#')[0] ?? '';
  const mark = rest.indexOf('?');
  const path = mark < 0 ? rest : rest.slice(0, mark);
  return { rawPath: decodePath(path || '/'), rawQueryString: mark < 0 ? '' : rest.slice(mark + 1) };
}

/** Lower-cased names, repeats joined with `,`; cookies split out of the headers as payload 2.0 does. */
export function splitHeaders(rawHeaders: readonly string[]) {
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = (rawHeaders[i] as string).toLowerCase();
    const value = rawHeaders[i + 1] as string;
    if (name === 'cookie') {
      cookies.push(
        ...value
          .split(';')
          .map((c) => c.trim())
          .filter(Boolean),
      );
    } else if (!HOP_BY_HOP.has(name)) {
      headers[name] = name in headers ? `${headers[name]},${value}` : value;
    }
  }
  return { headers, cookies };
}

/** Decoded values, repeats joined with `,`; undefined when there are none (the field is then omitted). */
export function queryParameters(rawQueryString: string): Record<string, string> | undefined {
  if (!rawQueryString) return undefined;
  const params: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(rawQueryString)) {
    params[name] = name in params ? `${params[name]},${value}` : value;
  }
  return Object.keys(params).length > 0 ? params : undefined;
}

/** Text only for the types API Gateway passes as UTF-8; anything else, untyped included, is base64. */
export function isTextual(contentType: string | undefined): boolean {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return (
    type.startsWith('text/') ||
    ['application/json', 'application/xml', 'application/javascript'].includes(type)
  );
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number) => String(n).padStart(2, '0');

/** `requestContext.time` format: `12/Mar/2020:19:03:58 +0000`. */
export const requestTime = (d: Date) =>
  `${pad(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:` +
  `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0000`;

const traceId = (now: Date) =>
  `Root=1-${Math.floor(now.getTime() / 1000).toString(16)}-${randomBytes(12).toString('hex')}`;

/** The parts shared by the authorizer's event and the function's event. */
export interface RequestParts {
  routeKey: string;
  rawPath: string;
  rawQueryString: string;
  cookies: string[];
  headers: Record<string, string>;
  queryStringParameters: Record<string, string> | undefined;
  requestContext: APIGatewayEventRequestContextV2;
}

export function requestParts(req: IncomingRequest, routeKey: string, requestId: string): RequestParts {
  const { rawPath, rawQueryString } = splitTarget(req.target);
  const { headers, cookies } = splitHeaders(req.rawHeaders);
  const sourceIp = (req.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
  const now = new Date();
  // API Gateway appends the caller to X-Forwarded-For and sets its own proto and port.
  headers['x-forwarded-for'] = headers['x-forwarded-for']
    ? `${headers['x-forwarded-for']}, ${sourceIp}`
    : sourceIp;
  headers['x-forwarded-proto'] = 'http';
  headers['x-forwarded-port'] = String(req.localPort);
  headers['x-amzn-trace-id'] ??= traceId(now);
  // Kept with its port: the local server is not on the scheme's default port, and handlers
  // build absolute links (Link: rel="next") from it.
  const domainName = headers.host ?? `localhost:${req.localPort}`;
  return {
    routeKey,
    rawPath,
    rawQueryString,
    cookies,
    headers,
    queryStringParameters: queryParameters(rawQueryString),
    requestContext: {
      accountId: ACCOUNT_ID,
      apiId: API_ID,
      domainName,
      domainPrefix: domainName.split(/[.:]/)[0] ?? domainName,
      http: {
        method: req.method,
        path: rawPath,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp,
        userAgent: headers['user-agent'] ?? '',
      },
      requestId,
      routeKey,
      stage: '$default',
      time: requestTime(now),
      timeEpoch: now.getTime(),
    },
  };
}

/** Optional fields are left out rather than set to null, as API Gateway sends them. */
const withOptional = (parts: RequestParts) => ({
  ...(parts.cookies.length > 0 ? { cookies: parts.cookies } : {}),
  headers: parts.headers,
  ...(parts.queryStringParameters ? { queryStringParameters: parts.queryStringParameters } : {}),
});

export function authorizerEvent(parts: RequestParts, identity: string): AuthorizerEvent {
  const { method, path } = parts.requestContext.http;
  return {
    version: '2.0',
    type: 'REQUEST',
    routeArn: `arn:aws:execute-api:${REGION}:${ACCOUNT_ID}:${API_ID}/$default/${method}${path}`,
    identitySource: [identity],
    routeKey: parts.routeKey,
    rawPath: parts.rawPath,
    rawQueryString: parts.rawQueryString,
    ...withOptional(parts),
    requestContext: parts.requestContext,
  } as AuthorizerEvent;
}

export function apiEvent(
  parts: RequestParts,
  body: Buffer | undefined,
  authorizerContext: unknown,
): ApiEvent {
  // Bytes that are not UTF-8 cannot be passed as text without being altered: base64 instead, so
  // the function sees them as sent (and refuses them).
  const text = body && isTextual(parts.headers['content-type']) && isUtf8(body);
  return {
    version: '2.0',
    routeKey: parts.routeKey,
    rawPath: parts.rawPath,
    rawQueryString: parts.rawQueryString,
    ...withOptional(parts),
    requestContext: { ...parts.requestContext, authorizer: { lambda: authorizerContext } },
    ...(body ? { body: body.toString(text ? 'utf8' : 'base64') } : {}),
    isBase64Encoded: Boolean(body && !text),
  } as ApiEvent;
}
