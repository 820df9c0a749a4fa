import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  deferredUsageKeyValue,
  tierNames,
  USAGE_KEY_SHARDS,
  usageIdentifierOf,
  usageKeyValues,
  usageShardOf,
} from '#contract/tiers.ts';
import { STACK_PREFIX, sanitiseStage } from '#infra/stage-name.ts';

/** API Gateway's quota of API keys per account and region. */
const ACCOUNT_KEYS = 10_000;
const WORKSPACES = 1_000_000;

describe('workspaces on the pool of usage keys', () => {
  const ids = Array.from({ length: WORKSPACES }, () => randomUUID());

  it.each(tierNames)(
    'spreads 1,000,000 workspaces of tier %s evenly over its keys, the same way every time',
    (tier) => {
      const shards = USAGE_KEY_SHARDS[tier];
      const load = new Uint32Array(shards);
      const assigned = new Uint16Array(WORKSPACES);
      for (let i = 0; i < WORKSPACES; i++) {
        const shard = usageShardOf(ids[i] as string, tier);
        assigned[i] = shard;
        load[shard] = (load[shard] ?? 0) + 1;
      }
      // Deterministic: the authorizer (every request) and the admin function (placement) agree.
      for (let i = 0; i < WORKSPACES; i += 997)
        expect(usageShardOf(ids[i] as string, tier)).toBe(assigned[i]);
      const mean = WORKSPACES / shards;
      // Every key used, none more than a quarter above or below its share (about 5 standard deviations).
      expect(Math.min(...load)).toBeGreaterThanOrEqual(mean * 0.75);
      expect(Math.max(...load)).toBeLessThanOrEqual(mean * 1.25);
    },
    60_000,
  );

  it('holds any number of workspaces in a bounded pool per stage, two durable stages within the account quota', () => {
    const prefix = `${STACK_PREFIX}-prod`;
    const values = new Set<string>();
    for (let i = 0; i < WORKSPACES; i++) {
      const tier = tierNames[i % tierNames.length] as (typeof tierNames)[number];
      values.add(usageIdentifierOf(prefix, ids[i] as string, tier));
    }
    values.add(deferredUsageKeyValue(prefix));
    const pool = [...usageKeyValues(prefix)].map((key) => key.value);
    expect(new Set(pool).size).toBe(pool.length);
    // A million workspaces use every key of the pool and nothing outside it.
    expect([...values].every((value) => pool.includes(value))).toBe(true);
    expect(values.size).toBe(pool.length);
    // prod and staging at full pools still leave room for previews (each creates keys as it uses them).
    expect(2 * pool.length).toBeLessThanOrEqual(ACCOUNT_KEYS * 0.75);
  });

  it('names keys API Gateway accepts (20 to 128 characters), apart per stage', () => {
    const longest = `${STACK_PREFIX}-${sanitiseStage('x'.repeat(300))}`;
    for (const prefix of [`${STACK_PREFIX}-prod`, longest]) {
      for (const { value } of usageKeyValues(prefix)) {
        expect(value.length).toBeGreaterThanOrEqual(20);
        expect(value.length).toBeLessThanOrEqual(128);
      }
    }
    const id = randomUUID();
    expect(usageIdentifierOf(`${STACK_PREFIX}-prod`, id, 'free')).not.toBe(
      usageIdentifierOf(`${STACK_PREFIX}-staging`, id, 'free'),
    );
  });
});
