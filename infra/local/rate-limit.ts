/**
 * The local gateway's limits, standing in for what API Gateway and WAF do when deployed:
 * - per workspace, its tier's token bucket (rate, burst) and daily quota (contract/tiers.ts), as
 *   the tier's usage plan does once the authorizer has named the workspace's usage identifier;
 * - per client address, a bucket on the requests that would reach the authorizer (cache misses),
 *   standing in for WAF's rate-based rule: a flood of made-up tokens costs a lookup each otherwise.
 * Over either: 429 problem+json with `Retry-After` and the headers every answer carries. In memory,
 * per process, like the rest of the local gateway.
 */
import { tiers as contractTiers, isTierName, type Tier, type TierName } from '#contract/tiers.ts';
import { tooManyRequests } from '#functions/http/problem.ts';
import { problem } from '#functions/http/respond.ts';
import { answerFromResult, type HttpAnswer } from './result.ts';

export interface Bucket {
  rate: number;
  burst: number;
}

export interface RateLimiterOptions {
  tiers?: Readonly<Record<TierName, Tier>>;
  /** Requests per second (and burst) one address may send to the authorizer; default 10 (20). */
  authorizerCalls?: Bucket;
  /** Buckets kept before idle (full) ones are forgotten. */
  maxEntries?: number;
  now?: () => number;
}

export interface RateLimiter {
  /** Before a request reaches the authorizer: a 429 when its address has asked too often. */
  beforeAuthorizer(remoteAddress: string | undefined, requestId: string): HttpAnswer | undefined;
  /** After the authorizer allowed it: a 429 when its workspace is over its tier's limits. */
  afterAllow(context: unknown, requestId: string): HttpAnswer | undefined;
}

const DAY_MS = 86_400_000;

interface State {
  tokens: number;
  at: number;
  day: number;
  used: number;
}

/** Token buckets by key, refilled lazily: `take` spends one token or says how long until one is back. */
class Buckets {
  private readonly states = new Map<string, State>();
  constructor(
    private readonly maxEntries: number,
    private readonly now: () => number,
  ) {}

  take(key: string, bucket: Bucket, dailyQuota = Number.POSITIVE_INFINITY) {
    const now = this.now();
    const day = Math.floor(now / DAY_MS);
    let state = this.states.get(key);
    if (!state) {
      this.prune(now, bucket);
      state = { tokens: bucket.burst, at: now, day, used: 0 };
      this.states.set(key, state);
    }
    state.tokens = Math.min(bucket.burst, state.tokens + ((now - state.at) / 1000) * bucket.rate);
    state.at = now;
    if (state.day !== day) Object.assign(state, { day, used: 0 });
    if (state.used >= dailyQuota) {
      return { ok: false, quota: true, retryAfter: Math.ceil(((day + 1) * DAY_MS - now) / 1000) } as const;
    }
    if (state.tokens < 1) {
      return { ok: false, quota: false, retryAfter: Math.ceil((1 - state.tokens) / bucket.rate) } as const;
    }
    state.tokens -= 1;
    state.used += 1;
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
  const callers = options.authorizerCalls ?? { rate: 10, burst: 20 };
  const now = options.now ?? Date.now;
  const workspaces = new Buckets(options.maxEntries ?? 10_000, now);
  const addresses = new Buckets(options.maxEntries ?? 10_000, now);

  return {
    beforeAuthorizer(remoteAddress, requestId) {
      const taken = addresses.take(remoteAddress ?? 'unknown', callers);
      if (taken.ok) return undefined;
      return limited(requestId, 'Too many requests from this address; slow down.', taken.retryAfter);
    },
    afterAllow(context, requestId) {
      const { workspaceId, tier } = (context ?? {}) as { workspaceId?: unknown; tier?: unknown };
      // A deferred answer names no workspace: the handler answers it (503) without a lookup of ours.
      if (typeof workspaceId !== 'string') return undefined;
      const limits = tiers[isTierName(tier) ? tier : 'standard'];
      const taken = workspaces.take(workspaceId, limits, limits.dailyQuota);
      if (taken.ok) return undefined;
      const detail = taken.quota
        ? `This workspace has used its daily quota of ${limits.dailyQuota} requests; it resets at 00:00 UTC.`
        : `This workspace is over its rate limit of ${limits.rate} requests per second.`;
      return limited(requestId, detail, taken.retryAfter);
    },
  };
}
