import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tierNames, tiers, USAGE_KEY_SHARDS } from '#contract/tiers.ts';
import { AUTHORIZATION_RATE_LIMIT, ipRateLimit } from '#infra/constructs/waf-numbers.ts';
import {
  QUOTA_RETRY_AFTER_SECONDS,
  THROTTLED_RETRY_AFTER_SECONDS,
  WAF_RETRY_AFTER_SECONDS,
} from '#infra/gateway-responses.ts';
import { LOCAL_PER_ADDRESS } from '#infra/local/rate-limit.ts';
import { repoRoot, stageConfig } from '#infra/stage.ts';

const doc = (name: string) => readFileSync(join(repoRoot, 'docs', name), 'utf8');
/** As the docs write numbers: 6,000. */
const n = (value: number) => value.toLocaleString('en-US');

describe('the docs tell the limits the templates and the local gateway apply', () => {
  const prod = stageConfig('prod', { alarmEmail: 'alarms@example.com' }).api;
  const preview = stageConfig('feature-x').api;
  const poolSize = tierNames.reduce((sum, tier) => sum + USAGE_KEY_SHARDS[tier], 1);

  it('docs/api.md: throttles, the per-IP and per-token rules, the pools, Retry-After and the tiers', () => {
    const api = doc('api.md');
    for (const text of [
      `${prod.rateLimit} requests/s (burst ${prod.burstLimit}) in production, ${preview.rateLimit}/${preview.burstLimit} in previews`,
      `per client IP ${n(ipRateLimit(prod.rateLimit))} per 5 minutes in production`,
      `per client IP, ${n(ipRateLimit(prod.rateLimit))} requests per 5 minutes (a tenth of the stage's ${prod.rateLimit} requests/s; previews with\n  the web ACL on: ${n(ipRateLimit(preview.rateLimit))}, a tenth of ${preview.rateLimit})`,
      `per \`Authorization\` value ${n(AUTHORIZATION_RATE_LIMIT)} per 5 minutes`,
      `${n(USAGE_KEY_SHARDS.free)} \`free\`, ${n(USAGE_KEY_SHARDS.standard)}\n  \`standard\`, ${n(USAGE_KEY_SHARDS.pro)} \`pro\``,
      `${THROTTLED_RETRY_AFTER_SECONDS} second for the rate,\n  ${n(QUOTA_RETRY_AFTER_SECONDS)} for the daily quota`,
      `x-amzn-waf-retry-after: ${WAF_RETRY_AFTER_SECONDS}`,
      `(${LOCAL_PER_ADDRESS.rate}/s, a\n  burst of ${n(LOCAL_PER_ADDRESS.burst)})`,
    ])
      expect(api).toContain(text);
    for (const tier of tierNames) {
      const { rate, burst, dailyQuota } = tiers[tier];
      const spaced = (v: number) => n(v).replaceAll(',', ' ');
      expect(api).toMatch(
        new RegExp(`\\| \`${tier}\` \\| ${rate} \\| ${burst} \\| ${spaced(dailyQuota)} \\|`),
      );
    }
  });

  it('docs/security.md and docs/deploying.md: the per-IP limit and the pool', () => {
    expect(doc('security.md')).toContain(`(${n(ipRateLimit(prod.rateLimit))} per 5 minutes in\nprod)`);
    const deploying = doc('deploying.md');
    expect(deploying).toContain(`per client IP ${n(ipRateLimit(prod.rateLimit))} per 5 minutes`);
    expect(deploying).toContain(`${n(ipRateLimit(preview.rateLimit))} per IP per 5 minutes`);
    expect(deploying).toContain(`${prod.rateLimit} req/s, burst ${prod.burstLimit}`);
    expect(deploying).toContain(`${preview.rateLimit} req/s, burst ${preview.burstLimit}`);
    expect(deploying).toContain(`at most ${n(poolSize)} API keys`);
    expect(doc('decisions.md')).toContain(
      `${n(ipRateLimit(prod.rateLimit))} per 5 minutes\n  in prod, ${n(ipRateLimit(preview.rateLimit))} in previews`,
    );
  });
});
