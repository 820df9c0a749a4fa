import type { AuthorizerResult } from '#functions/http/types.ts';

/** The authorizer allowed the call: its policy's one statement allows invoking. */
export const isAllowed = (result: AuthorizerResult): boolean =>
  result.policyDocument.Statement.length === 1 &&
  result.policyDocument.Statement.every((s) => 'Effect' in s && s.Effect === 'Allow');

/** The authorizer context a REST API hands the function as `requestContext.authorizer`. */
export const authorizerContext = (context: Record<string, unknown>) =>
  ({ ...context, principalId: String(context.principalId ?? ''), integrationLatency: 0 }) as never;
