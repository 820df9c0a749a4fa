import { randomUUID } from 'node:crypto';
import type { ApiEvent, AuthContext } from '#functions/http/types.ts';
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

/** An API Gateway HTTP API (payload 2.0) event as the authorizer-approved request would arrive. */
export function apiEvent(options: EventOptions): ApiEvent {
  const method = options.method ?? 'GET';
  const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  const headers: Record<string, string> = {
    host: 'api.test',
    'x-forwarded-proto': 'https',
    ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    ...(options.caller ? { authorization: `Bearer ${options.caller.token}` } : {}),
    ...options.headers,
  };
  const lambda: Partial<AuthContext> | undefined = options.caller
    ? {
        workspaceId: options.caller.workspaceId,
        principalId: options.caller.principalId,
        keyId: options.caller.keyId,
        scopes: options.scopes ?? 'agents:read agents:write sessions:read',
      }
    : undefined;
  const now = new Date();
  return {
    version: '2.0',
    routeKey: `${method} ${options.path}`,
    rawPath: options.path,
    rawQueryString: options.query ?? '',
    headers,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: 'api.test',
      domainPrefix: 'api',
      http: { method, path: options.path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'vitest' },
      requestId: randomUUID(),
      routeKey: `${method} ${options.path}`,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
      authorizer: { lambda: lambda ?? {} },
    },
    body,
    isBase64Encoded: false,
  } as ApiEvent;
}
