/**
 * The admin function's side of per-workspace limits, deployed: the stage's pool of API Gateway API
 * keys (contract/tiers.ts, `USAGE_KEY_SHARDS` per tier), each key's value a usage identifier the
 * authorizer answers, each key in exactly its tier's usage plan (infra/constructs/usage-plans.ts).
 * A workspace owns no key: it is metered on its tier's key for its shard, so a tier change moves
 * nothing and deleting a workspace leaves nothing behind. Keys are created on first use; `place` is
 * idempotent, so any later command (or `reconcile`) repairs a key a failed call left missing or out
 * of its plan, and `removeAll` deletes the stage's pool (a preview's teardown).
 */
import type { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import * as v from 'valibot';
import {
  DEFERRED_USAGE_TIER,
  deferredUsageKeyValue,
  type TierName,
  tierNames,
  USAGE_KEY_PREFIX_ENV,
  usageIdentifierOf,
} from '#contract/tiers.ts';

/** The deployed side of tiers: the stage's pool of usage keys, each in its tier's usage plan. */
export interface UsagePlanKeys {
  /** Idempotent: the workspace's key (and the deferred key) exists and is in its tier's plan. */
  place(workspaceId: string, tier: TierName): Promise<void>;
  /** `place` for many workspaces, each key once: repairs whatever a failed call left out. */
  reconcile(workspaces: Iterable<{ id: string; tier: TierName }>): Promise<number>;
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
    async reconcile(workspaces) {
      const keys = new Map<string, TierName>();
      for (const { id, tier } of workspaces) keys.set(usageIdentifierOf(prefix, id, tier), tier);
      for (const [value, tier] of keys) await ensure(value, tier);
      await deferred();
      return keys.size + 1;
    },
    async removeAll() {
      const { client, commands } = await api();
      const pool = await keysNamed(`vaw_${prefix}_`);
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
