/**
 * The web ACL's numbers (infra/constructs/waf.ts), apart so the local gateway and the docs test read
 * them without loading aws-cdk-lib.
 */
import { tiers } from '#contract/tiers.ts';

/** WAF counts rate-based rules over this window (seconds). */
export const RATE_WINDOW_SECONDS = 300;
/**
 * One address's share of the stage's throttle: a tenth, so no single address (an anonymous flood,
 * or one misbehaving client) takes more than that of every tenant's capacity (docs/decisions.md).
 */
export const IP_SHARE_OF_STAGE = 0.1;
/** The per-IP limit over the window for a stage throttled at `stageRate` requests per second. */
export const ipRateLimit = (stageRate: number) =>
  Math.floor(stageRate * IP_SHARE_OF_STAGE * RATE_WINDOW_SECONDS);
/** Per Authorization header: the highest tier's rate with room to spare, a backstop only. */
export const AUTHORIZATION_RATE_LIMIT = Math.ceil(tiers.pro.rate * RATE_WINDOW_SECONDS * 1.2);
