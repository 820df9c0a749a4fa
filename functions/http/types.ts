import type {
  APIGatewayAuthorizerWithContextResult,
  APIGatewayProxyResult,
  APIGatewayProxyWithLambdaAuthorizerEvent,
  APIGatewayRequestAuthorizerEvent,
} from 'aws-lambda';

/**
 * What the authorizer puts in its answer's `context`; a REST API hands it to the function as
 * `requestContext.authorizer`, beside `principalId`.
 */
// Type aliases, not interfaces: the context type must fit API Gateway's string-keyed record.
export type AuthContext = {
  workspaceId: string;
  principalId: string;
  keyId: string;
  /** Space-separated, as API Gateway context values must be scalars. */
  scopes: string;
  /** The workspace's tier (contract/tiers.ts) and usage identifier (its API Gateway API key's value). */
  tier: string;
  usageIdentifierKey: string;
};

/**
 * Sent instead when the database could not be asked: the handler then authenticates the request
 * itself and answers 503 while the database is away (see functions/authorizer.ts).
 */
export type DeferredAuthContext = {
  deferred: 'database-unavailable' | 'authorization-repeated';
};

/** A REST API Lambda proxy event (payload format 1.0). */
export type ApiEvent = APIGatewayProxyWithLambdaAuthorizerEvent<Partial<AuthContext & DeferredAuthContext>>;
export type ApiResult = APIGatewayProxyResult & {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
};
export type ApiHandler = (event: ApiEvent) => Promise<ApiResult>;

export type AuthorizerEvent = APIGatewayRequestAuthorizerEvent;
export type AuthorizerResult = APIGatewayAuthorizerWithContextResult<
  AuthContext | DeferredAuthContext | Record<string, never>
>;
export type AuthorizerHandler = (event: AuthorizerEvent) => Promise<AuthorizerResult>;

/**
 * A request header by name, any case: a REST API passes header names as the client sent them
 * (`Authorization`, `authorization`, `AUTHORIZATION` alike).
 */
export function headerOf(
  headers: Record<string, string | undefined> | null | undefined,
  name: string,
): string | undefined {
  if (!headers) return undefined;
  const exact = headers[name];
  if (exact !== undefined) return exact;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === wanted) return value;
  return undefined;
}

/**
 * The query string's pairs, in order, from the event's `multiValueQueryStringParameters` (the
 * REST API's decoded values, repeats kept): `queryStringParameters` keeps only the last of a
 * repeated name, which would hide `?limit=1&limit=2`.
 */
export function queryPairs(event: Pick<ApiEvent, 'multiValueQueryStringParameters'>): URLSearchParams {
  const params = new URLSearchParams();
  for (const [name, values] of Object.entries(event.multiValueQueryStringParameters ?? {})) {
    for (const value of values ?? []) params.append(name, value);
  }
  return params;
}

/** How many values a header came with, any case of its name (`name` lower-case). */
export const headerCount = (headers: Record<string, string[] | undefined> | null | undefined, name: string) =>
  Object.entries(headers ?? {})
    .filter(([key]) => key.toLowerCase() === name)
    .reduce((sum, [, values]) => sum + (values?.length ?? 0), 0);
