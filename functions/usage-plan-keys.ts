/**
 * The admin function's side of per-workspace limits, deployed: the stage's pool of API Gateway API
 * keys (contract/tiers.ts, `USAGE_KEY_SHARDS` per tier), each key's value a usage identifier the
 * authorizer answers, each key in exactly its tier's usage plan (infra/constructs/usage-plans.ts).
 * A workspace owns no key: it is metered on its tier's key for its shard, so a tier change moves
 * nothing and deleting a workspace leaves nothing behind. Keys are created on first use; `place` is
 * idempotent, so any later command repairs a key a failed call left missing or out of its plan, and
 * so does `reconcile`, which the schedule runs (the admin command `usage.reconcile`,
 * infra/constructs/schedules.ts); `removeAll` deletes the stage's pool (a preview's teardown).
 */
import type { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import * as v from 'valibot';
import {
  DEFERRED_USAGE_TIER,
  deferredUsageKeyValue,
  type TierName,
  tierNames,
  USAGE_KEY_PREFIX_ENV,
  USAGE_KEY_SHARDS,
  usageIdentifierOf,
  usageKeyNamePrefix,
  usageKeyValue,
  usageShardOf,
} from '#contract/tiers.ts';

/** One key of a tier's pool. */
export interface UsageShard {
  tier: TierName;
  shard: number;
}

/** Every key of every tier's pool (the deferred one aside): what a durable stage's schedule keeps whole. */
export const poolShards = (): UsageShard[] =>
  tierNames.flatMap((tier) =>
    Array.from({ length: USAGE_KEY_SHARDS[tier] }, (_, shard) => ({ tier, shard })),
  );

/** The keys some workspaces are metered on, each once (at most the pool's size, however many workspaces). */
export function usageShardsOf(workspaces: Iterable<{ id: string; tier: TierName }>): UsageShard[] {
  const shards = new Map<string, UsageShard>();
  for (const { id, tier } of workspaces) {
    const shard = usageShardOf(id, tier);
    shards.set(`${tier}/${shard}`, { tier, shard });
  }
  return [...shards.values()];
}

/** The deployed side of tiers: the stage's pool of usage keys, each in its tier's usage plan. */
export interface UsagePlanKeys {
  /** Idempotent: the workspace's key (and the deferred key) exists and is in its tier's plan. */
  place(workspaceId: string, tier: TierName): Promise<void>;
  /**
   * These keys (and the deferred one) exist and are in their plans: repairs whatever a failed call
   * left out, from one listing of the pool and of each plan (a few calls when nothing is missing).
   * Answers how many keys it created or put back in their plan; past `until` (epoch ms) it repairs
   * no more, and the next run goes on (API Gateway takes a few key writes a second).
   */
  reconcile(shards: Iterable<UsageShard>, options?: { until?: number }): Promise<number>;
  /** Deletes every key of this stage's pool (API Gateway drops them from their plans); how many. */
  removeAll(): Promise<number>;
}

/** The variables the stack sets: each tier's usage plan id (JSON), and the stage's key prefix (contract/tiers.ts). */
export { USAGE_KEY_PREFIX_ENV };
export const USAGE_PLAN_IDS_ENV = 'USAGE_PLAN_IDS';

const PlanIds = v.strictObject(
  Object.fromEntries(tierNames.map((tier) => [tier, v.pipe(v.string(), v.minLength(1))])) as Record<
    TierName,
    v.SchemaWithPipe<readonly [v.StringSchema<undefined>, v.MinLengthAction<string, 1, undefined>]>
  >,
);

/** API Gateway's error name that means "already so": the key is already in the plan. */
const alreadyIn = (error: unknown) => {
  if ((error as Error | null)?.name !== 'ConflictException') throw error;
};

// Loaded on first use: the Lambda runtime provides the SDK (bundles leave @aws-sdk/* out), and a
// stage without usage plans, or a CLI run locally, never needs it.
const sdk = () => import('@aws-sdk/client-api-gateway');

export function usagePlanKeys(
  planIds: Readonly<Record<TierName, string>>,
  prefix: string,
  makeClient: () => Promise<APIGatewayClient> = async () => new (await sdk()).APIGatewayClient({}),
): UsagePlanKeys {
  let client: APIGatewayClient | undefined;
  const api = async () => {
    client ??= await makeClient();
    return { client, commands: await sdk() };
  };

  /** The keys whose names start with `name`, every page. */
  async function keysNamed(name: string) {
    const { client, commands } = await api();
    const found: Array<{ id?: string; name?: string }> = [];
    let position: string | undefined;
    do {
      const page = await client.send(
        new commands.GetApiKeysCommand({ nameQuery: name, limit: 500, position }),
      );
      found.push(...(page.items ?? []));
      position = page.position;
    } while (position);
    return found;
  }

  /** Creates the key when missing and joins its tier's plan; a key never leaves it (its value names the tier). */
  async function ensure(value: string, tier: TierName) {
    const { client, commands } = await api();
    let keyId = (await keysNamed(value)).find((key) => key.name === value)?.id;
    if (!keyId) {
      const created = await client.send(
        new commands.CreateApiKeyCommand({
          name: value,
          value,
          enabled: true,
          description: `Usage identifier of the ${tier} tier (contract/tiers.ts); callers never send it.`,
        }),
      );
      keyId = created.id;
      if (!keyId) throw new Error('CreateApiKey answered no id');
    }
    await client
      .send(new commands.CreateUsagePlanKeyCommand({ usagePlanId: planIds[tier], keyId, keyType: 'API_KEY' }))
      .catch(alreadyIn);
  }

  const deferred = () => ensure(deferredUsageKeyValue(prefix), DEFERRED_USAGE_TIER);

  return {
    async place(workspaceId, tier) {
      await ensure(usageIdentifierOf(prefix, workspaceId, tier), tier);
      await deferred();
    },
    async reconcile(shards, { until = Number.POSITIVE_INFINITY } = {}) {
      const { client, commands } = await api();
      const wanted = new Map<string, TierName>([[deferredUsageKeyValue(prefix), DEFERRED_USAGE_TIER]]);
      for (const { tier, shard } of shards) wanted.set(usageKeyValue(prefix, tier, shard), tier);
      const ids = new Map<string, string>();
      for (const key of await keysNamed(usageKeyNamePrefix(prefix)))
        if (key.name && key.id) ids.set(key.name, key.id);
      const members = new Set<string>();
      for (const tier of tierNames) {
        let position: string | undefined;
        do {
          const page = await client.send(
            new commands.GetUsagePlanKeysCommand({ usagePlanId: planIds[tier], limit: 500, position }),
          );
          for (const item of page.items ?? []) if (item.id) members.add(item.id);
          position = page.position;
        } while (position);
      }
      let repaired = 0;
      for (const [value, tier] of wanted) {
        const id = ids.get(value);
        if (id && members.has(id)) continue;
        if (Date.now() > until) break;
        await ensure(value, tier);
        repaired++;
      }
      return repaired;
    },
    async removeAll() {
      const { client, commands } = await api();
      const pool = await keysNamed(usageKeyNamePrefix(prefix));
      for (const key of pool) await client.send(new commands.DeleteApiKeyCommand({ apiKey: key.id }));
      return pool.length;
    },
  };
}

/** From the stack's USAGE_PLAN_IDS and USAGE_KEY_PREFIX; undefined where not set (locally). A bad value throws. */
export function usagePlanKeysFromEnv(env = process.env): UsagePlanKeys | undefined {
  const raw = env[USAGE_PLAN_IDS_ENV];
  if (!raw) return undefined;
  const prefix = env[USAGE_KEY_PREFIX_ENV];
  if (!prefix) throw new Error(`${USAGE_PLAN_IDS_ENV} is set without USAGE_KEY_PREFIX`);
  return usagePlanKeys(v.parse(PlanIds, JSON.parse(raw)), prefix);
}
