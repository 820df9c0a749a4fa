import { randomUUID } from 'node:crypto';
import type { ApiEvent, AuthContext } from '#functions/http/types.ts';
import { queryParameters } from '#infra/local/event.ts';
import type { Tenant } from './tenants.ts';

export interface EventOptions {
  method?: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  /**
   * The route's template (`/agents/{agentId}`) when `path` is a concrete one; its parameters are
   * then read from `path` (`pathParameters` overrides them, e.g. for values no path could carry).
   */
  resource?: string;
  pathParameters?: Record<string, string> | null;
  query?: string;
  body?: unknown;
  /** Raw body text, sent as is (for malformed JSON). */
  rawBody?: string;
  headers?: Record<string, string>;
  /** The tenant as the authorizer resolved it; `null` for no authorizer context at all. */
  caller: Tenant | null;
  scopes?: string;
}

/** An API Gateway REST API (payload 1.0) event as the authorizer-approved request would arrive. */
export function apiEvent(options: EventOptions): ApiEvent {
  const method = options.method ?? 'GET';
  const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  const headers: Record<string, string> = {
    // Names as a client sent them (a REST API keeps their case): lower-case here; handlers read any
    // case (test/functions/header-case.test.ts).
    host: 'api.test',
    'x-forwarded-proto': 'https',
    ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    ...(options.caller ? { authorization: `Bearer ${options.caller.token}` } : {}),
    ...options.headers,
  };
  const context: Partial<AuthContext> = options.caller
    ? {
        workspaceId: options.caller.workspaceId,
        principalId: options.caller.principalId,
        keyId: options.caller.keyId,
        scopes: options.scopes ?? 'agents:read agents:write agents:publish sessions:read',
      }
    : {};
  const now = new Date();
  const resource = options.resource ?? options.path;
  return {
    resource,
    path: options.path,
    httpMethod: method,
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])),
    ...queryParameters(options.query ?? ''),
    pathParameters:
      options.pathParameters !== undefined ? options.pathParameters : parametersOf(resource, options.path),
    stageVariables: null,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: 'api.test',
      domainPrefix: 'api',
      httpMethod: method,
      identity: { sourceIp: '127.0.0.1', userAgent: 'vitest' },
      path: options.path,
      protocol: 'HTTP/1.1',
      requestId: randomUUID(),
      requestTime: now.toUTCString(),
      requestTimeEpoch: now.getTime(),
      resourceId: resource,
      resourcePath: resource,
      stage: 'v1',
      authorizer: { ...context, principalId: context.principalId ?? '', integrationLatency: 0 },
    },
    body: body ?? null,
    isBase64Encoded: false,
  } as unknown as ApiEvent;
}

/** `{name}` segments of `resource` read from the same segments of `path` (decoded once); null for none. */
function parametersOf(resource: string, path: string): Record<string, string> | null {
  const template = resource.split('/');
  const sent = path.split('/');
  const params = template.flatMap((segment, i) => {
    const name = /^\{(.+)\}$/.exec(segment)?.[1];
    return name ? [[name, decodeURIComponent(sent[i] ?? '')] as const] : [];
  });
  return params.length > 0 ? Object.fromEntries(params) : null;
}

/** Sets a request header in both of the event's header maps (`undefined`: the header is not sent). */
export function setHeader(event: ApiEvent, name: string, value: string | undefined): ApiEvent {
  for (const sent of Object.keys(event.headers)) {
    if (sent.toLowerCase() !== name.toLowerCase()) continue;
    delete event.headers[sent];
    delete event.multiValueHeaders[sent];
  }
  if (value !== undefined) {
    event.headers[name] = value;
    event.multiValueHeaders[name] = [value];
  }
  return event;
}
