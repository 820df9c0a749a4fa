import type {
  APIGatewayProxyEventV2WithLambdaAuthorizer,
  APIGatewayProxyStructuredResultV2,
  APIGatewayRequestAuthorizerEventV2,
  APIGatewaySimpleAuthorizerWithContextResult,
} from 'aws-lambda';

/** What the authorizer puts in `requestContext.authorizer.lambda` (simple responses). */
export interface AuthContext {
  workspaceId: string;
  principalId: string;
  keyId: string;
  /** Space-separated, as API Gateway context values must be scalars. */
  scopes: string;
  /** The workspace's tier (contract/tiers.ts) and usage identifier (its API Gateway API key's value). */
  tier: string;
  usageIdentifierKey: string;
}

/**
 * Sent instead when the database could not be asked: the handler then authenticates the request
 * itself and answers 503 while the database is away (see functions/authorizer.ts).
 */
export interface DeferredAuthContext {
  deferred: 'database-unavailable';
}

export type ApiEvent = APIGatewayProxyEventV2WithLambdaAuthorizer<Partial<AuthContext & DeferredAuthContext>>;
export type ApiResult = APIGatewayProxyStructuredResultV2 & {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
};
export type ApiHandler = (event: ApiEvent) => Promise<ApiResult>;

export type AuthorizerEvent = APIGatewayRequestAuthorizerEventV2;
export type AuthorizerResult = APIGatewaySimpleAuthorizerWithContextResult<
  AuthContext | DeferredAuthContext | Record<string, never>
>;
export type AuthorizerHandler = (event: AuthorizerEvent) => Promise<AuthorizerResult>;
