import { withDeadline } from '#db/client.ts';
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
 * When the database cannot be reached the request is let through marked `deferred`, so the
 * handler can answer 503 with Retry-After (an authorizer can only allow, deny or fail with 500)
 * and re-authenticates by itself; the mark carries no identity, so it grants nothing.
 */
export const build =
  ({ db, logger }: Deps): AuthorizerHandler =>
  async (event) => {
    try {
      const principal = await withDeadline(db, () => principalFor(db, event.headers?.authorization));
      if (!principal) return deny;
      return {
        isAuthorized: true,
        context: {
          workspaceId: principal.workspaceId,
          principalId: principal.principalId,
          keyId: principal.keyId,
          scopes: principal.scopes.join(' '),
        },
      };
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      logger('warn', 'authorizer deferred: database unavailable', {
        requestId: event.requestContext?.requestId,
        error,
      });
      return { isAuthorized: true, context: { deferred: 'database-unavailable' } };
    }
  };

export const handler = lambda(build);
