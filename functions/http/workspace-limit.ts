/**
 * Each workspace held to its tier's rate and daily quota, in the route functions: API Gateway meters
 * a key that many workspaces share (contract/tiers.ts), so only here is the workspace itself counted.
 * Over a limit: the same 429 problem with `Retry-After` the gateway answers.
 */
import { DEFAULT_TIER, isTierName, type Tier, type TierName } from '#contract/tiers.ts';
import type { SqlRunner } from '#db/database.ts';
import { takeRequest } from '#db/queries/workspace-limits.ts';
import { tooManyRequests } from './problem.ts';

export interface WorkspaceLimits {
  tiers: Readonly<Record<TierName, Tier>>;
  now?: () => number;
}

/** Takes one request of the workspace's tier, or throws the 429 problem saying when to retry. */
export async function holdToTier(
  sql: SqlRunner,
  limits: WorkspaceLimits,
  workspaceId: string,
  tier: unknown,
): Promise<void> {
  const numbers = limits.tiers[isTierName(tier) ? tier : DEFAULT_TIER];
  const taken = await takeRequest(sql, workspaceId, numbers, limits.now?.());
  if (taken.ok) return;
  throw tooManyRequests(
    taken.quota
      ? `This workspace has used its daily quota of ${numbers.dailyQuota} requests; it resets at 00:00 UTC.`
      : `This workspace is over its rate limit of ${numbers.rate} requests per second.`,
    taken.retryAfter,
  );
}
