/**
 * Per-workspace limits. Every workspace has a tier (`standard` unless set otherwise); each tier is
 * a token bucket (a steady rate in requests per second and a burst) plus a daily quota of requests,
 * counted per workspace, whichever key or caller sends them. Deployed, API Gateway enforces them
 * through one usage plan per tier (infra/constructs/usage-plans.ts); locally, infra/local/rate-limit.ts
 * enforces the very same numbers. Over a limit the answer is 429 with `Retry-After`.
 */
import * as v from 'valibot';

export const tierNames = ['free', 'standard', 'pro'] as const;
export type TierName = (typeof tierNames)[number];
export const DEFAULT_TIER: TierName = 'standard';

export interface Tier {
  /** Steady rate, requests per second. */
  rate: number;
  /** Requests that may arrive at once after a quiet spell (the bucket's size). */
  burst: number;
  /** Requests per UTC day. */
  dailyQuota: number;
}

/**
 * `free` is for trials, `standard` for a production integration, `pro` for heavy ones. The daily
 * quotas sit well under rate × 86 400: the rate bounds spikes, the quota a day's total.
 */
export const tiers: Readonly<Record<TierName, Tier>> = {
  free: { rate: 5, burst: 10, dailyQuota: 10_000 },
  standard: { rate: 50, burst: 100, dailyQuota: 500_000 },
  pro: { rate: 200, burst: 400, dailyQuota: 5_000_000 },
};

export const TierSchema = v.picklist(tierNames, `must be one of ${tierNames.join(', ')}`);

export const isTierName = (value: unknown): value is TierName =>
  (tierNames as readonly unknown[]).includes(value);

/**
 * The workspace's usage identifier: the value of its API Gateway API key, which the authorizer
 * returns (API key source AUTHORIZER) so API Gateway counts the request against the key's usage
 * plan. Nobody sends it: it is derived, not a secret (API Gateway wants 20 to 128 characters).
 */
export const usageIdentifierOf = (workspaceId: string) => `vaw_${workspaceId}`;
