import { usageIdentifierOf } from '#contract/tiers.ts';
import { isDatabaseUnavailable } from '#db/errors.ts';
import type { Principal } from '#db/queries/api-keys.ts';
import { type Deps, lambda } from './deps.ts';
import { principalFor } from './http/bearer.ts';
import {
  type AuthorizerEvent,
  type AuthorizerHandler,
  type AuthorizerResult,
  headerOf,
} from './http/types.ts';

/**
 * Every method of the stage the request came in on: the answer is cached per Authorization header
 * and reused for every route the same token calls, so it must not name only this one.
 * `arn:aws:execute-api:region:account:api/stage/GET/sessions` → `…:api/stage/*`.
 */
export function stageResources(methodArn: string): string {
  const [apiArn, stage = '*'] = methodArn.split('/');
  return `${apiArn}/${stage}/*`;
}

const policy = (effect: 'Allow' | 'Deny', methodArn: string) => ({
  Version: '2012-10-17',
  Statement: [{ Action: 'execute-api:Invoke', Effect: effect, Resource: stageResources(methodArn) }],
});

/**
 * The usage plan key API Gateway meters this caller against (API key source `AUTHORIZER`): the
 * workspace's API key value, kept in its tier's usage plan by the admin function.
 */
export const usageIdentifierKeyOf = (principal: Principal): string =>
  usageIdentifierOf(principal.workspaceId);

/**
 * Bearer API keys → the caller's workspace, principal and scopes (a REST API REQUEST authorizer:
 * an IAM policy and a context, cached per Authorization header for AUTHORIZER_CACHE_TTL_SECONDS).
 * An unknown key gets a Deny (API Gateway's 403). Scopes are checked by each route, not here: a
 * cached answer is reused for every route the same token calls.
 *
 * The lookup is a read: after a dropped connection it runs again on a fresh one. When the database
 * still cannot answer, or anything else goes wrong, the request is let through marked `deferred`, so
 * the handler re-authenticates by itself and answers (503 with Retry-After while the database is
 * away): an authorizer can only allow, deny or fail with API Gateway's bare 500. The mark carries no
 * identity, so it grants nothing.
 */
export const build =
  ({ database, logger }: Deps): AuthorizerHandler =>
  async (event: AuthorizerEvent): Promise<AuthorizerResult> => {
    try {
      const principal = await database.run(
        (sql) => principalFor(sql, headerOf(event.headers, 'authorization')),
        { repeatable: true },
      );
      if (!principal)
        return { principalId: 'anonymous', policyDocument: policy('Deny', event.methodArn), context: {} };
      const usageIdentifierKey = usageIdentifierKeyOf(principal);
      return {
        principalId: principal.principalId,
        policyDocument: policy('Allow', event.methodArn),
        context: {
          workspaceId: principal.workspaceId,
          principalId: principal.principalId,
          keyId: principal.keyId,
          scopes: principal.scopes.join(' '),
          tier: principal.tier,
          usageIdentifierKey,
        },
        usageIdentifierKey,
      };
    } catch (error) {
      const unavailable = isDatabaseUnavailable(error);
      logger(
        unavailable ? 'warn' : 'error',
        `authorizer deferred: ${unavailable ? 'database unavailable' : 'unexpected error'}`,
        {
          requestId: event.requestContext?.requestId,
          error,
        },
      );
      return {
        principalId: 'deferred',
        policyDocument: policy('Allow', event.methodArn),
        context: { deferred: 'database-unavailable' },
      };
    }
  };

export const handler = lambda(build);
