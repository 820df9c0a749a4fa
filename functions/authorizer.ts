import {
  DEFAULT_TIER,
  deferredUsageKeyValue,
  isTierName,
  USAGE_KEY_PREFIX_ENV,
  usageIdentifierOf,
} from '#contract/tiers.ts';
import { isDatabaseUnavailable } from '#db/errors.ts';
import type { Principal } from '#db/queries/api-keys.ts';
import { type Deps, lambda } from './deps.ts';
import { principalFor, type Refusals } from './http/bearer.ts';
import {
  type AuthorizerEvent,
  type AuthorizerHandler,
  type AuthorizerResult,
  type DeferredAuthContext,
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

export interface AuthorizerSettings {
  /** The stage's usage key prefix (its stack name); `local` where no API Gateway meters anything. */
  usageKeyPrefix: string;
  /** Tokens refused lately (functions/http/bearer.ts); default this container's. */
  refusals?: Refusals;
}

export const authorizerSettingsFromEnv = (env = process.env): AuthorizerSettings => ({
  usageKeyPrefix: env[USAGE_KEY_PREFIX_ENV] || 'local',
});

/** How many values the Authorization header came with (a REQUEST authorizer sees every one). */
const authorizationCount = (event: AuthorizerEvent) =>
  Object.entries(event.multiValueHeaders ?? {})
    .filter(([name]) => name.toLowerCase() === 'authorization')
    .reduce((sum, [, values]) => sum + (values?.length ?? 0), 0);

/**
 * The usage plan key API Gateway meters this caller against (API key source `AUTHORIZER`): one key
 * of its tier's pool, chosen by its workspace id (contract/tiers.ts), kept in the tier's usage plan
 * by the admin function.
 */
export const usageIdentifierKeyOf = (prefix: string, principal: Principal): string =>
  usageIdentifierOf(
    prefix,
    principal.workspaceId,
    isTierName(principal.tier) ? principal.tier : DEFAULT_TIER,
  );

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
 * identity, so it grants nothing; its usage key is the stage's deferred key, so API Gateway lets it
 * through to that 503. The same mark, without a lookup, for two Authorization headers: the function
 * refuses them (400). A token the database did not know is refused from memory for a while after.
 */
export const build = (
  { database, logger }: Deps,
  settings: AuthorizerSettings = authorizerSettingsFromEnv(),
): AuthorizerHandler => {
  const deferred = (event: AuthorizerEvent, why: DeferredAuthContext['deferred']): AuthorizerResult => ({
    principalId: 'deferred',
    policyDocument: policy('Allow', event.methodArn),
    context: { deferred: why },
    // Without a key API Gateway would answer its own missing-key error before the function's answer.
    usageIdentifierKey: deferredUsageKeyValue(settings.usageKeyPrefix),
  });
  return async (event: AuthorizerEvent): Promise<AuthorizerResult> => {
    // Two credentials: the function answers 400 naming the header (a Deny could only say 403). A
    // cached answer for one of the values then makes its function re-authenticate it: still right.
    if (authorizationCount(event) > 1) return deferred(event, 'authorization-repeated');
    const header = headerOf(event.headers, 'authorization');
    try {
      const principal = await database.run((sql) => principalFor(sql, header, settings.refusals), {
        repeatable: true,
      });
      if (!principal)
        return { principalId: 'anonymous', policyDocument: policy('Deny', event.methodArn), context: {} };
      const usageIdentifierKey = usageIdentifierKeyOf(settings.usageKeyPrefix, principal);
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
      return deferred(event, 'database-unavailable');
    }
  };
};

export const handler = lambda(build);
