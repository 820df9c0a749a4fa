/**
 * Per-workspace limits. Every workspace has a tier (`standard` unless set otherwise); each tier is
 * a token bucket (a steady rate in requests per second and a burst) plus a daily quota of requests,
 * counted per workspace, whichever key or caller sends them. The route functions enforce them per
 * workspace (db/queries/workspace-limits.ts, a row per workspace); API Gateway's usage plan per tier
 * (infra/constructs/usage-plans.ts) meters each key of the tier's pool at `USAGE_KEY_HEADROOM` times
 * the tier's rate, the shard's ceiling. Over a limit the answer is 429 with `Retry-After`.
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
 * API Gateway usage identifiers: a fixed pool of API keys per tier, so a stage holds any number of
 * workspaces within the account's 10,000 keys (docs/decisions.md, "Per-workspace limits"). A
 * workspace is metered on one key of its tier's pool, chosen by a hash of its id: the same key on
 * every request and after every deploy, another key (with its own bucket) when its tier changes.
 * Workspaces that share a key share its plan, the shard's ceiling (`usageKeyPlanOf`); `USAGE_KEY_SHARDS` sets how many.
 */
export const USAGE_KEY_SHARDS: Readonly<Record<TierName, number>> = { free: 1024, standard: 2048, pro: 512 };

/** 32-bit FNV-1a of the id's UTF-16 code units: cheap, stable across runtimes, well spread on UUIDs. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** The workspace's shard in its tier's pool, 0 ≤ shard < `USAGE_KEY_SHARDS[tier]`. */
export const usageShardOf = (workspaceId: string, tier: TierName) =>
  fnv1a(workspaceId) % USAGE_KEY_SHARDS[tier];

/** How every key name of the stage's pool begins: what finds them all by name (`GetApiKeys`' `nameQuery`). */
export const usageKeyNamePrefix = (prefix: string) => `vaw_${prefix}_`;

/**
 * A usage key's value (and name): the stage's prefix (its stack name: API key values are unique per
 * account and region, so stages cannot share one), the tier and the shard. Nobody sends it: it is
 * derived, not a secret (API Gateway wants 20 to 128 characters).
 */
export const usageKeyValue = (prefix: string, tier: TierName, shard: number) =>
  `${usageKeyNamePrefix(prefix)}${tier}_${String(shard).padStart(4, '0')}`;

/** The variable naming the stage's key prefix, for the authorizer and the key function alike. */
export const USAGE_KEY_PREFIX_ENV = 'USAGE_KEY_PREFIX';

/** The key a workspace is metered on: its tier's pool, its shard. */
export const usageIdentifierOf = (prefix: string, workspaceId: string, tier: TierName) =>
  usageKeyValue(prefix, tier, usageShardOf(workspaceId, tier));

/**
 * The key of requests the authorizer could not identify (the database was away): in the `pro`
 * plan, so API Gateway lets them reach the function, which answers 503 (never API Gateway's
 * missing-key 403); the stage's throttle still bounds them.
 */
export const deferredUsageKeyValue = (prefix: string) => `${usageKeyNamePrefix(prefix)}deferred`;
export const DEFERRED_USAGE_TIER: TierName = 'pro';

/**
 * A pool key's usage plan: this many times its tier's rate and burst, no quota. Workspaces on one key
 * share its bucket, so it is a ceiling on the shard, not the workspace's limit (the route functions
 * hold each workspace to its tier): a workspace sending up to `USAGE_KEY_HEADROOM - 1` times its rate
 * leaves a key-mate at its full rate untouched. No quota: requests the functions refuse still count
 * on the key, and a workspace past its own daily quota would spend its key-mates' day.
 */
export const USAGE_KEY_HEADROOM = 10;
export const usageKeyPlanOf = (tier: TierName): { rate: number; burst: number } => ({
  rate: tiers[tier].rate * USAGE_KEY_HEADROOM,
  burst: tiers[tier].burst * USAGE_KEY_HEADROOM,
});

/** Every usage key value of a stage's pool, the deferred one included. */
export function* usageKeyValues(prefix: string): Generator<{ value: string; tier: TierName }> {
  yield { value: deferredUsageKeyValue(prefix), tier: DEFERRED_USAGE_TIER };
  for (const tier of tierNames)
    for (let shard = 0; shard < USAGE_KEY_SHARDS[tier]; shard++)
      yield { value: usageKeyValue(prefix, tier, shard), tier };
}
