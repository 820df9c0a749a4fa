import { usageIdentifierOf } from '#contract/tiers.ts';
import { isDatabaseUnavailable } from '#db/errors.ts';
import { type Deps, lambda } from './deps.ts';
import { principalFor } from './http/bearer.ts';
import type { AuthorizerHandler, AuthorizerResult } from './http/types.ts';

const deny: AuthorizerResult = { isAuthorized: false, context: {} };

/**
 * Bearer API keys → the caller's workspace, principal and scopes (API Gateway simple responses,
 * cached per Authorization header for AUTHORIZER_CACHE_TTL_SECONDS). Scopes are checked by each
 * route, not here: a cached answer is reused for every route the same token calls.
 *
 * The lookup is a read: after a dropped connection it runs again on a fresh one. When the database
 * still cannot answer, or anything else goes wrong, the request is let through marked `deferred`, so
 * the handler re-authenticates by itself and answers (503 with Retry-After while the database is
 * away): an authorizer can only allow, deny or fail with API Gateway's bare 500. The mark carries no
 * identity, so it grants nothing.
 */
export const build =
  ({ database, logger }: Deps): AuthorizerHandler =>
  async (event) => {
    try {
      const principal = await database.run((sql) => principalFor(sql, event.headers?.authorization), {
        repeatable: true,
      });
      if (!principal) return deny;
      return {
        isAuthorized: true,
        context: {
          workspaceId: principal.workspaceId,
          principalId: principal.principalId,
          keyId: principal.keyId,
          scopes: principal.scopes.join(' '),
          tier: principal.tier,
          usageIdentifierKey: usageIdentifierOf(principal.workspaceId),
        },
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
      return { isAuthorized: true, context: { deferred: 'database-unavailable' } };
    }
  };

export const handler = lambda(build);
