import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AUTHORIZER_CACHE_TTL_SECONDS } from '#contract/routes.ts';
import { tierNames, tiers, USAGE_KEY_HEADROOM, USAGE_KEY_SHARDS, usageKeyPlanOf } from '#contract/tiers.ts';
import { USAGE_KEYS_EVERY } from '#infra/constructs/schedules.ts';
import { AUTHORIZATION_RATE_LIMIT, ipRateLimit } from '#infra/constructs/waf-numbers.ts';
import {
  QUOTA_RETRY_AFTER_SECONDS,
  THROTTLED_RETRY_AFTER_SECONDS,
  WAF_RETRY_AFTER_SECONDS,
} from '#infra/gateway-responses.ts';
import { LOCAL_PER_ADDRESS } from '#infra/local/rate-limit.ts';
import { repoRoot, stageConfig } from '#infra/stage.ts';
import { synthesise } from '#test/infra/synth.ts';

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

// biome-ignore lint/suspicious/noExplicitAny: template JSON read ad hoc
type Resource = { Type: string; Properties?: any };

/** Every resource of the synthesised prod app, nested stacks included. */
function prodResources(): Resource[] {
  const { app, outdir } = synthesise('prod', { alarmEmail: 'alarms@example.com' });
  app.synth();
  return readdirSync(outdir)
    .filter((file) => file.endsWith('.template.json'))
    .flatMap(
      (file) =>
        Object.values(JSON.parse(readFileSync(join(outdir, file), 'utf8')).Resources ?? {}) as Resource[],
    );
}

describe('the numbers the docs are held to above are the synthesised prod template’s', () => {
  const prod = stageConfig('prod', { alarmEmail: 'alarms@example.com' }).api;
  const resources = prodResources();
  const ofType = (type: string) => resources.filter((r) => r.Type === type);
  /** Docs wrap lines anywhere: compared with every run of white space as one space. */
  const flat = (name: string) => doc(name).replace(/\s+/g, ' ');

  it('the stage throttle, the per-IP and per-token rules, the authorizer cache', () => {
    const [stage] = ofType('AWS::ApiGateway::Stage');
    const throttled = stage?.Properties.MethodSettings.find(
      (s: { ThrottlingRateLimit?: number }) => s.ThrottlingRateLimit,
    );
    expect([throttled?.ThrottlingRateLimit, throttled?.ThrottlingBurstLimit]).toEqual([
      prod.rateLimit,
      prod.burstLimit,
    ]);
    const [acl] = ofType('AWS::WAFv2::WebACL');
    const limitOf = (name: string) =>
      acl?.Properties.Rules.find((r: { Name: string }) => r.Name === name)?.Statement.RateBasedStatement
        .Limit;
    expect(limitOf('rate-per-ip')).toBe(ipRateLimit(prod.rateLimit));
    expect(limitOf('rate-per-authorization')).toBe(AUTHORIZATION_RATE_LIMIT);
    const ttls = ofType('AWS::ApiGateway::Authorizer').map((a) => a.Properties.AuthorizerResultTtlInSeconds);
    expect(ttls).toEqual([AUTHORIZER_CACHE_TTL_SECONDS]);
    expect(flat('api.md')).toContain(`its decision about a token for ${AUTHORIZER_CACHE_TTL_SECONDS} s`);
    expect(flat('security.md')).toContain(
      `\`AUTHORIZER_CACHE_TTL_SECONDS\` (${AUTHORIZER_CACHE_TTL_SECONDS} s, the same in the stack and the local gateway)`,
    );
  });

  it("each tier's pool-key plan (the shard's ceiling, no quota), and the reconcile schedule", () => {
    const plans = ofType('AWS::ApiGateway::UsagePlan');
    expect(plans).toHaveLength(tierNames.length);
    for (const tier of tierNames) {
      const plan = plans.find((p) => String(p.Properties.UsagePlanName).endsWith(`-${tier}`));
      const { rate, burst } = usageKeyPlanOf(tier);
      expect(plan?.Properties.Throttle).toEqual({ RateLimit: rate, BurstLimit: burst });
      expect(plan?.Properties.Quota).toBeUndefined();
    }
    const plan = (tier: (typeof tierNames)[number]) =>
      `\`${tier}\` ${n(usageKeyPlanOf(tier).rate)}/s, burst ${n(usageKeyPlanOf(tier).burst)}`;
    expect(flat('api.md')).toContain(
      `${USAGE_KEY_HEADROOM} times the tier's rate and burst (${plan('free')}; ${plan('standard')}; ${plan('pro')}), no quota; a workspace sending more than ${USAGE_KEY_HEADROOM - 1} times its rate`,
    );
    expect(flat('security.md')).toContain(`at ${USAGE_KEY_HEADROOM} times their tier`);
    expect(flat('security.md')).toContain(`a workspace past ${USAGE_KEY_HEADROOM - 1} times its rate`);
    expect(flat('decisions.md')).toContain(
      `\`USAGE_KEY_HEADROOM\` (${USAGE_KEY_HEADROOM}) times the tier's rate and burst, with no quota`,
    );
    const [rule] = ofType('AWS::Events::Rule').filter((r) =>
      String(r.Properties.Description).includes('usage key pool'),
    );
    const minutes = USAGE_KEYS_EVERY.toMinutes();
    expect(rule?.Properties.ScheduleExpression).toBe(`rate(${minutes} minutes)`);
    expect(flat('deploying.md')).toContain(`kept whole by a schedule every ${minutes} minutes`);
    expect(flat('decisions.md')).toContain(`\`reconcilePool\` every ${minutes} minutes`);
  });
});
