/**
 * Keeps one workspace's API key in its tier's usage plan (functions/usage-plan-keys.ts), for the
 * admin function, which invokes it: API Gateway's management API has no VPC endpoint, so the calls
 * are made from here, outside the VPC, and the admin function (which needs the database) stays in it.
 */
import * as v from 'valibot';
import { tierNames } from '#contract/tiers.ts';
import { usagePlanKeysFromEnv } from './usage-plan-keys.ts';

/** What the admin function sends (functions/usage-plan-keys-remote.ts). */
export const PlaceKey = v.strictObject({
  workspaceId: v.pipe(v.string(), v.minLength(1)),
  tier: v.picklist(tierNames),
});
export type PlaceKey = v.InferOutput<typeof PlaceKey>;

const keys = usagePlanKeysFromEnv();

export async function handler(event: unknown): Promise<{ placed: true }> {
  if (!keys) throw new Error('USAGE_PLAN_IDS is not set');
  const { workspaceId, tier } = v.parse(PlaceKey, event);
  await keys.place(workspaceId, tier);
  return { placed: true };
}
