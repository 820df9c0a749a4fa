import {
  type ApiEvent,
  type ApiResult,
  type AuthorizerEvent,
  type AuthorizerResult,
  headerOf,
} from '#functions/http/types.ts';
import { authorizerContext, isAllowed } from '#test/helpers/policy.ts';
import type { App, RouteName } from './app.ts';

const handlerOf = (app: App, route: RouteName) =>
  ({
    'create-agent': app.createAgent,
    'get-agent': app.getAgent,
    'list-agents': app.listAgents,
    'list-sessions': app.listSessions,
    'list-versions': app.listVersions,
    'get-version': app.getVersion,
    'diff-versions': app.diffVersions,
    'get-session': app.getSession,
    'create-version': app.createVersion,
    'update-agent': app.updateAgent,
    'publish-agent': app.publishAgent,
    'archive-agent': app.archiveAgent,
    'unarchive-agent': app.unarchiveAgent,
    'agent-history': app.agentHistory,
    'create-session': app.createSession,
    'start-session': app.startSession,
    'heartbeat-session': app.heartbeatSession,
    'complete-session': app.completeSession,
    'list-events': app.listEvents,
    'list-ledger': app.listLedger,
    'get-ledger-entry': app.getLedgerEntry,
    'create-credit': app.createCredit,
    'get-balance': app.getBalance,
    'get-usage': app.getUsage,
    'create-webhook-endpoint': app.createWebhookEndpoint,
    'list-webhook-endpoints': app.listWebhookEndpoints,
    'get-webhook-endpoint': app.getWebhookEndpoint,
    'update-webhook-endpoint': app.updateWebhookEndpoint,
    'delete-webhook-endpoint': app.deleteWebhookEndpoint,
    'rotate-webhook-secret': app.rotateWebhookSecret,
    'test-webhook-endpoint': app.testWebhookEndpoint,
    'recover-webhook-events': app.recoverWebhookEvents,
    'list-webhook-deliveries': app.listWebhookDeliveries,
    'get-webhook-delivery': app.getWebhookDelivery,
    'redeliver-webhook': app.redeliverWebhook,
  })[route];

/** The authorizer's event for a handler event, as API Gateway derives it. */
export function authorizerEventFor(event: ApiEvent): AuthorizerEvent {
  return {
    type: 'REQUEST',
    // The concrete path, as API Gateway writes it (not the resource template).
    methodArn: `arn:aws:execute-api:eu-west-1:000000000000:api/v1/${event.httpMethod}${event.path}`,
    resource: event.resource,
    path: event.path,
    httpMethod: event.httpMethod,
    headers: event.headers,
    multiValueHeaders: event.multiValueHeaders,
    queryStringParameters: event.queryStringParameters,
    multiValueQueryStringParameters: event.multiValueQueryStringParameters,
    pathParameters: event.pathParameters ?? {},
    stageVariables: {},
    requestContext: { ...event.requestContext, authorizer: undefined },
  } as unknown as AuthorizerEvent;
}

export type FlowAnswer =
  | { kind: 'handler'; result: ApiResult; authorizer: AuthorizerResult }
  | { kind: 'gateway'; statusCode: 401 | 403 | 500; authorizer?: AuthorizerResult; error?: unknown };

/**
 * What API Gateway does with one request, without the HTTP: the authorizer decides (a throw is
 * API Gateway's 500, a denial its 403), then the handler runs with the authorizer's context. Given
 * a `cache`, a decision is reused per Authorization header, as the stage's authorizer cache does
 * (its policy covers the whole stage, functions/authorizer.ts).
 */
export async function throughAuthorizer(
  app: App,
  route: RouteName,
  event: ApiEvent,
  cache?: Map<string, AuthorizerResult>,
): Promise<FlowAnswer> {
  const authorization = headerOf(event.headers, 'authorization');
  if (!authorization) return { kind: 'gateway', statusCode: 401 };
  let decision: AuthorizerResult;
  try {
    decision = cache?.get(authorization) ?? (await app.authorize(authorizerEventFor(event)));
  } catch (error) {
    return { kind: 'gateway', statusCode: 500, error };
  }
  cache?.set(authorization, decision);
  if (!isAllowed(decision)) return { kind: 'gateway', statusCode: 403, authorizer: decision };
  const authorized = {
    ...event,
    requestContext: {
      ...event.requestContext,
      authorizer: authorizerContext({ ...decision.context, principalId: decision.principalId }),
    },
  } as ApiEvent;
  return { kind: 'handler', result: await handlerOf(app, route)(authorized), authorizer: decision };
}

export { handlerOf };
