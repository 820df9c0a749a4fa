import { randomBytes } from 'node:crypto';
import type { APIGatewayEventRequestContextWithAuthorizer } from 'aws-lambda';
import { ownRecord } from '#functions/http/own-record.ts';
import type { ApiEvent, AuthorizerEvent } from '#functions/http/types.ts';

/** What the gateway knows about one HTTP request before its body is read. */
export interface IncomingRequest {
  method: string;
  /** The request target as sent: `/path?query`. */
  target: string;
  /** Node's `rawHeaders`: name, value, name, value… in the order received. */
  rawHeaders: readonly string[];
  httpVersion: string;
  remoteAddress: string | undefined;
  localPort: number;
}

export const ACCOUNT_ID = '000000000000';
export const API_ID = 'local';
/** The deployed stage's name (infra/constructs/api.ts); locally paths carry no stage segment. */
export const STAGE = 'v1';
const REGION = process.env.AWS_REGION ?? 'us-east-1';

// Random bytes drawn a pool at a time: one call into the system's generator per 4 KiB, not per id.
let pool = Buffer.alloc(0);
let used = 0;
function random(size: number): Buffer {
  if (used + size > pool.length) {
    pool = randomBytes(4096);
    used = 0;
  }
  used += size;
  return pool.subarray(used - size, used);
}

/** API Gateway's ids look like `JKJaXmPLvHcESHA=`: 11 random bytes in base64. */
export const newRequestId = () => random(11).toString('base64');

// Hop-by-hop headers end at the gateway; the function never sees them. `host` is replaced by the
// API's own domain, as API Gateway does.
const DROPPED = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'transfer-encoding',
  'upgrade',
  'host',
]);

/** Every escape decoded except `%25` (so `%2525` stays `%2525`). */
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

/**
 * Path and query exactly as sent; an absolute-form target (`http://host/p`) is cut to its path.
 * `rawPath` is decoded (`decodePath`), `encodedPath` as sent (routes match on its segments).
 */
export function splitTarget(target: string): {
  rawPath: string;
  encodedPath: string;
  rawQueryString: string;
} {
  const origin = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(target)?.[0] ?? '';
  const rest = target.slice(origin.length).split('#')[0] ?? '';
  const mark = rest.indexOf('?');
  const path = mark < 0 ? rest : rest.slice(0, mark);
  return {
    rawPath: decodePath(path || '/'),
    encodedPath: path || '/',
    rawQueryString: mark < 0 ? '' : rest.slice(mark + 1),
  };
}

/**
 * Payload 1.0 headers, grouped under the name as the client first sent it: every value of each,
 * and each name by its lower case.
 */
interface SentHeaders {
  values: Map<string, string[]>;
  names: Map<string, string>;
}

function sentHeaders(rawHeaders: readonly string[]): SentHeaders {
  const values = new Map<string, string[]>();
  const names = new Map<string, string>();
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const sent = rawHeaders[i] as string;
    const lower = sent.toLowerCase();
    if (DROPPED.has(lower)) continue;
    const name = names.get(lower) ?? sent;
    names.set(lower, name);
    const value = rawHeaders[i + 1] as string;
    const earlier = values.get(name);
    if (earlier) earlier.push(value);
    else values.set(name, [value]);
  }
  return { values, names };
}

/** The last value of a header, whatever case it was sent in. */
const lastValue = ({ values, names }: SentHeaders, lower: string) =>
  values.get(names.get(lower) ?? '')?.at(-1);

/** API Gateway's own value of a header: whatever the client sent under that name (any case) goes. */
function replace({ values, names }: SentHeaders, name: string, value: string) {
  const lower = name.toLowerCase();
  const sent = names.get(lower);
  if (sent !== undefined) values.delete(sent);
  names.set(lower, name);
  values.set(name, [value]);
}

/** The last of several values (a repeated header or parameter), as payload 1.0 keeps it. */
const last = (all: string[]) => all.at(-1) ?? '';

/**
 * `headers` keeps a repeated header's last value, `multiValueHeaders` every value; cookies stay
 * headers. A header named `__proto__` stays an own property (`ownRecord`).
 */
const payloadHeaders = ({ values }: SentHeaders) => ({
  headers: ownRecord(values, last),
  multiValueHeaders: ownRecord(values),
});

/** Decoded values: the last of a repeated name, and every value; both null when there are none. */
export function queryParameters(rawQueryString: string): {
  queryStringParameters: Record<string, string> | null;
  multiValueQueryStringParameters: Record<string, string[]> | null;
} {
  if (rawQueryString === '') return { queryStringParameters: null, multiValueQueryStringParameters: null };
  const multi = new Map<string, string[]>();
  for (const [name, value] of new URLSearchParams(rawQueryString)) {
    const earlier = multi.get(name);
    if (earlier) earlier.push(value);
    else multi.set(name, [value]);
  }
  if (multi.size === 0) return { queryStringParameters: null, multiValueQueryStringParameters: null };
  return {
    queryStringParameters: ownRecord(multi, last),
    multiValueQueryStringParameters: ownRecord(multi),
  };
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number) => String(n).padStart(2, '0');

/** `requestContext.requestTime` format: `12/Mar/2020:19:03:58 +0000`. */
export const requestTime = (d: Date) =>
  `${pad(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:` +
  `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0000`;

const traceId = (now: Date) =>
  `Root=1-${Math.floor(now.getTime() / 1000).toString(16)}-${random(12).toString('hex')}`;

type RequestContext = Omit<APIGatewayEventRequestContextWithAuthorizer<unknown>, 'authorizer'>;

/** The parts shared by the authorizer's event and the function's event. */
export interface RequestParts {
  httpMethod: string;
  /** The route's resource path, its template, e.g. `/agents/{agentId}`. */
  resource: string;
  path: string;
  /** The template's parameters, each decoded once; null when it has none (payload 1.0). */
  pathParameters: Record<string, string> | null;
  headers: Record<string, string>;
  multiValueHeaders: Record<string, string[]>;
  queryStringParameters: Record<string, string> | null;
  multiValueQueryStringParameters: Record<string, string[]> | null;
  requestContext: RequestContext;
}

/**
 * `base`: the API's own URL (the configured base URL): its host becomes `Host` and
 * `requestContext.domainName`, from which handlers build absolute links, never the client's `Host`.
 */
export function requestParts(
  req: IncomingRequest,
  { resource, pathParameters }: { resource: string; pathParameters: Record<string, string> | null },
  requestId: string,
  base: URL,
): RequestParts {
  const { rawPath, rawQueryString } = splitTarget(req.target);
  const sent = sentHeaders(req.rawHeaders);
  const ip = req.remoteAddress ?? '127.0.0.1';
  const sourceIp = ip.startsWith('::ffff:') ? ip.slice(7) : ip;
  const now = new Date();
  const domainName = base.host;
  const forwarded = lastValue(sent, 'x-forwarded-for');
  const userAgent = lastValue(sent, 'user-agent') ?? null;
  // API Gateway sets Host to its own domain, appends the caller to X-Forwarded-For and sets its
  // own proto and port.
  replace(sent, 'Host', domainName);
  replace(sent, 'X-Forwarded-For', forwarded ? `${forwarded}, ${sourceIp}` : sourceIp);
  replace(sent, 'X-Forwarded-Port', base.port || (base.protocol === 'http:' ? '80' : '443'));
  replace(sent, 'X-Forwarded-Proto', base.protocol.replace(':', ''));
  if (!sent.names.has('x-amzn-trace-id')) replace(sent, 'X-Amzn-Trace-Id', traceId(now));
  const { headers, multiValueHeaders } = payloadHeaders(sent);
  return {
    httpMethod: req.method,
    resource,
    path: rawPath,
    pathParameters,
    headers,
    multiValueHeaders,
    ...queryParameters(rawQueryString),
    requestContext: {
      accountId: ACCOUNT_ID,
      apiId: API_ID,
      domainName,
      domainPrefix: domainName.split(/[.:]/)[0] ?? domainName,
      extendedRequestId: requestId,
      httpMethod: req.method,
      identity: {
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp,
        user: null,
        userAgent,
        userArn: null,
      },
      // The path the client called: on the local server there is no stage segment in it.
      path: rawPath,
      protocol: `HTTP/${req.httpVersion}`,
      requestId,
      requestTime: requestTime(now),
      requestTimeEpoch: now.getTime(),
      resourceId: resource,
      resourcePath: resource,
      stage: STAGE,
    },
  };
}

export function authorizerEvent(parts: RequestParts): AuthorizerEvent {
  return {
    type: 'REQUEST',
    // The concrete path, not the template, as API Gateway writes it: `…/GET/agents/<id>`.
    methodArn: `arn:aws:execute-api:${REGION}:${ACCOUNT_ID}:${API_ID}/${STAGE}/${parts.httpMethod}${parts.path}`,
    resource: parts.resource,
    path: parts.path,
    httpMethod: parts.httpMethod,
    headers: parts.headers,
    multiValueHeaders: parts.multiValueHeaders,
    queryStringParameters: parts.queryStringParameters,
    multiValueQueryStringParameters: parts.multiValueQueryStringParameters,
    pathParameters: parts.pathParameters ?? {},
    stageVariables: {},
    requestContext: parts.requestContext,
  } as AuthorizerEvent;
}

/**
 * The function's event. Every body is base64, as the deployed API (binary media type `*∕*`)
 * sends it: bytes reach the function as sent, whatever they are.
 */
export function apiEvent(
  parts: RequestParts,
  body: Buffer | undefined,
  principalId: string,
  authorizerContext: Record<string, unknown>,
): ApiEvent {
  return {
    resource: parts.resource,
    path: parts.path,
    httpMethod: parts.httpMethod,
    headers: parts.headers,
    multiValueHeaders: parts.multiValueHeaders,
    queryStringParameters: parts.queryStringParameters,
    multiValueQueryStringParameters: parts.multiValueQueryStringParameters,
    pathParameters: parts.pathParameters,
    stageVariables: null,
    // Object.assign rather than a spread followed by more keys, which V8 builds on a slow path, on
    // every request.
    requestContext: Object.assign({}, parts.requestContext, {
      authorizer: Object.assign({}, authorizerContext, { principalId, integrationLatency: 0 }),
    }),
    body: body ? body.toString('base64') : null,
    isBase64Encoded: Boolean(body),
  } as ApiEvent;
}
