/**
 * Keeps the stage's pool of usage keys in their tiers' plans (functions/usage-plan-keys.ts), for the
 * admin function, which invokes it: API Gateway's management API has no VPC endpoint, so the calls
 * are made from here, outside the VPC, and the admin function (which needs the database) stays in it.
 */
import * as v from 'valibot';
import { tierNames } from '#contract/tiers.ts';
import { usagePlanKeysFromEnv } from './usage-plan-keys.ts';

const Workspace = v.strictObject({ id: v.pipe(v.string(), v.minLength(1)), tier: v.picklist(tierNames) });

/** What the admin function sends (functions/usage-plan-keys-remote.ts): one method of UsagePlanKeys. */
export const KeyRequest = v.variant('op', [
  v.strictObject({
    op: v.literal('place'),
    workspaceId: v.pipe(v.string(), v.minLength(1)),
    tier: v.picklist(tierNames),
  }),
  v.strictObject({ op: v.literal('reconcile'), workspaces: v.array(Workspace) }),
  v.strictObject({ op: v.literal('removeAll') }),
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
      return { count: await keys.reconcile(request.workspaces) };
    case 'removeAll':
      return { count: await keys.removeAll() };
  }
}
