import type { ApiEvent, ApiResult, AuthorizerEvent, AuthorizerResult } from '#functions/http/types.ts';
import type { App, RouteName } from './app.ts';

const handlerOf = (app: App, route: RouteName) =>
  ({ 'create-agent': app.createAgent, 'list-agents': app.listAgents, 'list-sessions': app.listSessions })[
    route
  ];

/** The authorizer's event for a handler event, as API Gateway derives it. */
export function authorizerEventFor(event: ApiEvent): AuthorizerEvent {
  const authorization = event.headers?.authorization;
  return {
    version: '2.0',
    type: 'REQUEST',
    routeArn: `arn:aws:execute-api:eu-west-1:000000000000:api/$default/${event.routeKey.replace(' ', '')}`,
    identitySource: authorization ? [authorization] : [],
    routeKey: event.routeKey,
    rawPath: event.rawPath,
    rawQueryString: event.rawQueryString,
    headers: event.headers,
    requestContext: event.requestContext,
  } as unknown as AuthorizerEvent;
}

export type FlowAnswer =
  | { kind: 'handler'; result: ApiResult; authorizer: AuthorizerResult }
  | { kind: 'gateway'; statusCode: 401 | 403 | 500; authorizer?: AuthorizerResult; error?: unknown };

/**
 * What API Gateway does with one request, without the HTTP: the authorizer decides (a throw is
 * API Gateway's 500, a denial its 403), then the handler runs with the authorizer's context.
 */
export async function throughAuthorizer(app: App, route: RouteName, event: ApiEvent): Promise<FlowAnswer> {
  if (!event.headers?.authorization) return { kind: 'gateway', statusCode: 401 };
  let decision: AuthorizerResult;
  try {
    decision = await app.authorize(authorizerEventFor(event));
  } catch (error) {
    return { kind: 'gateway', statusCode: 500, error };
  }
  if (!decision.isAuthorized) return { kind: 'gateway', statusCode: 403, authorizer: decision };
  const authorized = {
    ...event,
    requestContext: { ...event.requestContext, authorizer: { lambda: decision.context ?? {} } },
  } as ApiEvent;
  return { kind: 'handler', result: await handlerOf(app, route)(authorized), authorizer: decision };
}

export { handlerOf };
