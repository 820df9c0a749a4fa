/**
 * The local gateway's limits, standing in for what API Gateway and WAF do when deployed:
 * - per client address, every request, as the web ACL's `rate-per-ip` rule (infra/constructs/waf.ts):
 *   a tenth of the stage's throttle, refused with WAF's answer (infra/local/edge.ts);
 * - per usage key, its tier's pool-key plan (`usageKeyPlanOf`, contract/tiers.ts: the shard's
 *   ceiling, no quota), as the tier's usage plan does for the key the authorizer named (an answer
 *   naming no key is keyed by its workspace), 429 problem+json with `Retry-After`.
 * Each workspace's own rate and daily quota are the route functions' (functions/http/workspace-limit.ts):
 * startGateway turns them on with these tiers. In memory, per process, like the rest of the local gateway.
 */
import {
  tiers as contractTiers,
  isTierName,
  type Tier,
  type TierName,
  USAGE_KEY_HEADROOM,
} from '#contract/tiers.ts';
import { tooManyRequests } from '#functions/http/problem.ts';
import { problem } from '#functions/http/respond.ts';
import { IP_SHARE_OF_STAGE } from '../constructs/waf-numbers.ts';
import { edgeAnswer } from './edge.ts';
import { answerFromResult, type HttpAnswer } from './result.ts';

/** The stage the local gateway plays: prod's throttle (infra/stage.ts; test/local/edge.test.ts holds them equal). */
export const LOCAL_STAGE_RATE = 200;
/**
 * Per address: a tenth of the stage's rate, and (as WAF counts over five minutes before it blocks)
 * the whole window's allowance as the burst.
 */
export const LOCAL_PER_ADDRESS: Bucket = {
  rate: LOCAL_STAGE_RATE * IP_SHARE_OF_STAGE,
  burst: LOCAL_STAGE_RATE * IP_SHARE_OF_STAGE * 300,
};

export interface Bucket {
  rate: number;
  burst: number;
}

export interface RateLimiterOptions {
  tiers?: Readonly<Record<TierName, Tier>>;
  /** Requests per second (and burst) one address may send; default LOCAL_PER_ADDRESS. */
  perAddress?: Bucket;
  /** Buckets kept before idle (full) ones are forgotten. */
  maxEntries?: number;
  now?: () => number;
}

export interface RateLimiter {
  /** The tiers played: the pool keys' plans here, each workspace's own limits in the functions. */
  readonly tiers: Readonly<Record<TierName, Tier>>;
  /** Every request first, as the web ACL: WAF's 429 when its address has sent too many. */
  perAddress(remoteAddress: string | undefined): HttpAnswer | undefined;
  /** After the authorizer allowed it: a 429 when its usage key is over its tier's limits. */
  afterAllow(context: unknown, requestId: string): HttpAnswer | undefined;
}

interface State {
  tokens: number;
  at: number;
}

/** Token buckets by key, refilled lazily: `take` spends one token or says how long until one is back. */
class Buckets {
  private readonly states = new Map<string, State>();
  constructor(
    private readonly maxEntries: number,
    private readonly now: () => number,
  ) {}

  take(key: string, bucket: Bucket) {
    const now = this.now();
    let state = this.states.get(key);
    if (!state) {
      this.prune(now, bucket);
      state = { tokens: bucket.burst, at: now };
      this.states.set(key, state);
    }
    state.tokens = Math.min(bucket.burst, state.tokens + ((now - state.at) / 1000) * bucket.rate);
    state.at = now;
    if (state.tokens < 1) {
      return { ok: false, retryAfter: Math.ceil((1 - state.tokens) / bucket.rate) } as const;
    }
    state.tokens -= 1;
    return { ok: true } as const;
  }

  /** Past the bound, forgets the buckets that have refilled (nothing lost but today's count). */
  private prune(now: number, bucket: Bucket) {
    if (this.states.size < this.maxEntries) return;
    const idleMs = (bucket.burst / bucket.rate) * 1000;
    for (const [key, state] of this.states) if (now - state.at >= idleMs) this.states.delete(key);
    if (this.states.size >= this.maxEntries) this.states.delete(this.states.keys().next().value as string);
  }
}

const limited = (requestId: string, detail: string, retryAfter: number) =>
  answerFromResult(problem(requestId, tooManyRequests(detail, retryAfter)));

export function createRateLimiter(options: RateLimiterOptions = {}): RateLimiter {
  const tiers = options.tiers ?? contractTiers;
  const callers = options.perAddress ?? LOCAL_PER_ADDRESS;
  const now = options.now ?? Date.now;
  const keys = new Buckets(options.maxEntries ?? 10_000, now);
  const addresses = new Buckets(options.maxEntries ?? 10_000, now);

  return {
    tiers,
    perAddress(remoteAddress) {
      return addresses.take(remoteAddress ?? 'unknown', callers).ok ? undefined : edgeAnswer('rate-per-ip');
    },
    afterAllow(context, requestId) {
      const { workspaceId, tier, usageIdentifierKey } = (context ?? {}) as Record<string, unknown>;
      // A deferred answer names no workspace: the handler answers it (503) without a lookup of ours.
      if (typeof workspaceId !== 'string') return undefined;
      const { rate, burst } = tiers[isTierName(tier) ? tier : 'standard'];
      const plan = { rate: rate * USAGE_KEY_HEADROOM, burst: burst * USAGE_KEY_HEADROOM };
      const key = typeof usageIdentifierKey === 'string' ? usageIdentifierKey : workspaceId;
      const taken = keys.take(key, plan);
      if (taken.ok) return undefined;
      return limited(
        requestId,
        `The workspaces sharing this usage key are over its rate limit of ${plan.rate} requests per second.`,
        taken.retryAfter,
      );
    },
  };
}
