/**
 * Keeps the stage's pool of usage keys in their tiers' plans (functions/usage-plan-keys.ts), for the
 * admin function, which invokes it, and for a durable stage's schedule (`reconcilePool`): API Gateway's management API has no VPC endpoint, so the calls
 * are made from here, outside the VPC, and the admin function (which needs the database) stays in it.
 */
import * as v from 'valibot';
import { tierNames } from '#contract/tiers.ts';
import { poolShards, usagePlanKeysFromEnv } from './usage-plan-keys.ts';

/** A scheduled run repairs for this long, within the function's 20 s; the next run goes on. */
const POOL_RUN_MS = 12_000;

const Shard = v.strictObject({
  tier: v.picklist(tierNames),
  shard: v.pipe(v.number(), v.integer(), v.minValue(0)),
});

/** What the admin function sends (functions/usage-plan-keys-remote.ts): one method of UsagePlanKeys. */
export const KeyRequest = v.variant('op', [
  v.strictObject({
    op: v.literal('place'),
    workspaceId: v.pipe(v.string(), v.minLength(1)),
    tier: v.picklist(tierNames),
  }),
  // The keys, not the workspaces: at most the pool's size, however many workspaces there are.
  v.strictObject({ op: v.literal('reconcile'), shards: v.array(Shard) }),
  v.strictObject({ op: v.literal('removeAll') }),
  // The schedule's, on a durable stage: the whole pool, so no workspace's key can be missing for long.
  v.strictObject({ op: v.literal('reconcilePool') }),
]);
export type KeyRequest = v.InferOutput<typeof KeyRequest>;

const keys = usagePlanKeysFromEnv();

export async function handler(event: unknown): Promise<{ count: number }> {
  if (!keys) throw new Error('USAGE_PLAN_IDS is not set');
  const request = v.parse(KeyRequest, event);
  switch (request.op) {
    case 'place':
      await keys.place(request.workspaceId, request.tier);
      return { count: 1 };
    case 'reconcile':
      return { count: await keys.reconcile(request.shards) };
    case 'removeAll':
      return { count: await keys.removeAll() };
    case 'reconcilePool':
      return { count: await keys.reconcile(poolShards(), { until: Date.now() + POOL_RUN_MS }) };
  }
}
