import { randomUUID } from 'node:crypto';
import type { ApiEvent, AuthContext } from '#functions/http/types.ts';
import { queryParameters } from '#infra/local/event.ts';
import type { Tenant } from './tenants.ts';

export interface EventOptions {
  method?: 'GET' | 'POST';
  path: string;
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
        scopes: options.scopes ?? 'agents:read agents:write sessions:read',
      }
    : {};
  const now = new Date();
  return {
    resource: options.path,
    path: options.path,
    httpMethod: method,
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])),
    ...queryParameters(options.query ?? ''),
    pathParameters: null,
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
      resourceId: options.path,
      resourcePath: options.path,
      stage: 'v1',
      authorizer: { ...context, principalId: context.principalId ?? '', integrationLatency: 0 },
    },
    body: body ?? null,
    isBase64Encoded: false,
  } as unknown as ApiEvent;
}
