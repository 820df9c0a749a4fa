import { createHash } from 'node:crypto';
import { DEFAULT_TIER, deferredUsageKeyValue, isTierName, usageIdentifierOf } from '#contract/tiers.ts';
import { isDatabaseUnavailable } from '#db/errors.ts';
import type { Principal } from '#db/queries/api-keys.ts';
import { type Deps, lambda } from './deps.ts';
import { bearerToken, principalFor } from './http/bearer.ts';
import {
  type AuthorizerEvent,
  type AuthorizerHandler,
  type AuthorizerResult,
  headerOf,
} from './http/types.ts';
import { USAGE_KEY_PREFIX_ENV } from './usage-plan-keys.ts';

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
  /** How long a refused token is answered from memory, and how many are kept. */
  refusalTtlMs: number;
  refusalMaxEntries: number;
}

export const authorizerSettingsFromEnv = (env = process.env): AuthorizerSettings => ({
  usageKeyPrefix: env[USAGE_KEY_PREFIX_ENV] || 'local',
  refusalTtlMs: 30_000,
  refusalMaxEntries: 10_000,
});

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
 * Tokens the database did not know, by SHA-256, for a short while: a flood of made-up tokens
 * costs one lookup per token, not one per request, even where API Gateway's own cache is cold or
 * keyed on another spelling of the header. Bounded: the oldest refusal goes first. Safe to cache:
 * a token is random, so none becomes valid after it was refused; a revoked one stays refused.
 */
class Refusals {
  readonly #until = new Map<string, number>();
  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
  ) {}
  static key = (token: string) => createHash('sha256').update(token).digest('base64url');
  has(key: string, now = Date.now()): boolean {
    const until = this.#until.get(key);
    if (until === undefined) return false;
    if (until > now) return true;
    this.#until.delete(key);
    return false;
  }
  add(key: string, now = Date.now()) {
    this.#until.delete(key);
    while (this.#until.size >= this.maxEntries) this.#until.delete(this.#until.keys().next().value as string);
    this.#until.set(key, now + this.ttlMs);
  }
}

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
 * through to that 503. A token the database did not know is refused from memory for a while after.
 */
export const build = (
  { database, logger }: Deps,
  settings: AuthorizerSettings = authorizerSettingsFromEnv(),
): AuthorizerHandler => {
  const refusals = new Refusals(settings.refusalTtlMs, settings.refusalMaxEntries);
  const deny = (event: AuthorizerEvent): AuthorizerResult => ({
    principalId: 'anonymous',
    policyDocument: policy('Deny', event.methodArn),
    context: {},
  });
  return async (event: AuthorizerEvent): Promise<AuthorizerResult> => {
    const header = headerOf(event.headers, 'authorization');
    const token = bearerToken(header);
    const refusal = token === undefined ? undefined : Refusals.key(token);
    if (refusal === undefined || refusals.has(refusal)) return deny(event);
    try {
      const principal = await database.run((sql) => principalFor(sql, header), { repeatable: true });
      if (!principal) {
        refusals.add(refusal);
        return deny(event);
      }
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
      return {
        principalId: 'deferred',
        policyDocument: policy('Allow', event.methodArn),
        context: { deferred: 'database-unavailable' },
        // Without a key API Gateway would answer its own missing-key 403 before the function's 503.
        usageIdentifierKey: deferredUsageKeyValue(settings.usageKeyPrefix),
      };
    }
  };
};

export const handler = lambda(build);
