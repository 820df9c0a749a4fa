/**
 * Each workspace held to its tier's rate and daily quota, in the route functions: API Gateway meters
 * a key that many workspaces share (contract/tiers.ts), so only here is the workspace itself counted.
 * Over a limit: the same 429 problem with `Retry-After` the gateway answers.
 */
import { DEFAULT_TIER, isTierName, type Tier, type TierName } from '#contract/tiers.ts';
import type { SqlRunner } from '#db/database.ts';
import { takeRequest } from '#db/queries/workspace-limits.ts';
import { quotaExceeded, tooManyRequests } from './problem.ts';

export interface WorkspaceLimits {
  tiers: Readonly<Record<TierName, Tier>>;
  now?: () => number;
}

/**
 * Takes one request of the workspace's tier, or throws the 429 problem saying when to retry. The
 * bucket is charged at `arrivedAt`, when API Gateway took the request (`requestTimeEpoch`), as its
 * own throttle would: not when a queue for a connection let this statement run.
 */
export async function holdToTier(
  sql: SqlRunner,
  limits: WorkspaceLimits,
  workspaceId: string,
  tier: unknown,
  arrivedAt?: number,
): Promise<void> {
  const numbers = limits.tiers[isTierName(tier) ? tier : DEFAULT_TIER];
  const taken = await takeRequest(sql, workspaceId, numbers, limits.now?.() ?? arrivedAt ?? Date.now());
  if (taken.ok) return;
  throw taken.quota
    ? quotaExceeded(
        `This workspace has used its daily quota of ${numbers.dailyQuota} requests; it resets at 00:00 UTC.`,
        taken.retryAfter,
      )
    : tooManyRequests(
        `This workspace is over its rate limit of ${numbers.rate} requests per second.`,
        taken.retryAfter,
      );
}
