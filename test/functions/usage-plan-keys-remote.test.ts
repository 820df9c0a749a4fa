import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AdminAnswer, AdminResults } from '#contract/admin.ts';
import { tierNames, usageIdentifierOf } from '#contract/tiers.ts';
import type { DatabaseHandle } from '#db/client.ts';
import { adminSettingsFromEnv, build } from '#functions/admin.ts';
import { silentLogger } from '#functions/http/log.ts';
import { USAGE_KEY_PREFIX_ENV, USAGE_PLAN_IDS_ENV } from '#functions/usage-plan-keys.ts';
import { USAGE_PLAN_KEYS_FUNCTION_ENV } from '#functions/usage-plan-keys-remote.ts';
import { localUsagePlans } from '#local-aws/api-gateway-endpoint.ts';
import { type AwsEndpoint, startAwsEndpoint } from '#local-aws/aws-endpoint.ts';
import type { LocalFunction } from '#local-aws/lambda-endpoint.ts';
import { freshDatabase } from '#test/helpers/database.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const planIds = { free: 'plan-free', standard: 'plan-standard', pro: 'plan-pro' } as const;
const prefix = 'RemoteStage';

function resultOf<C extends keyof typeof AdminResults>(answer: AdminAnswer, command: C) {
  if (!answer.ok) throw new Error(`expected ok, got ${JSON.stringify(answer.error)}`);
  return v.parse(AdminResults[command], answer.result);
}

/**
 * As deployed: the admin function (in the VPC) invokes the key function (outside it) through the
 * real Lambda SDK, which calls API Gateway through the real SDK; both APIs are the local stand-ins.
 */
describe('the admin function places keys through the key function outside the VPC', () => {
  let database: DatabaseHandle;
  let endpoint: AwsEndpoint;
  const state = localUsagePlans(Object.values(planIds));
  const functions = new Map<string, LocalFunction>();
  const saved = { ...process.env };

  beforeAll(async () => {
    database = await freshDatabase();
    endpoint = await startAwsEndpoint({ functions, stacks: new Map(), usagePlans: state });
    Object.assign(process.env, {
      AWS_ENDPOINT_URL_API_GATEWAY: endpoint.url,
      AWS_ENDPOINT_URL_LAMBDA: endpoint.url,
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      // The key function's own environment, read when its module loads.
      [USAGE_PLAN_IDS_ENV]: JSON.stringify(planIds),
      [USAGE_KEY_PREFIX_ENV]: prefix,
    });
    const { handler } = await import('#functions/usage-plan-keys-handler.ts');
    functions.set('keys-function', handler);
  });
  afterAll(async () => {
    process.env = saved;
    await endpoint?.close();
    await database?.close();
  });

  const plansOf = (value: string) => {
    const key = [...state.keys.values()].find((k) => k.name === value);
    return tierNames.filter((tier) => key && state.plans.get(planIds[tier])?.has(key.id));
  };

  const admin = () =>
    build(
      { database, logger: silentLogger },
      adminSettingsFromEnv({ STAGE: 'prod', [USAGE_PLAN_KEYS_FUNCTION_ENV]: 'keys-function' }),
    );

  it('places the workspace on its tier pool key, and on the new tier pool key when it moves, with no API Gateway call of its own', async () => {
    const { workspace } = resultOf(
      await admin()({ command: 'workspace.create', name: 'Remote' }),
      'workspace.create',
    );
    expect(plansOf(usageIdentifierOf(prefix, workspace.id, 'standard'))).toEqual(['standard']);
    resultOf(
      await admin()({ command: 'workspace.tier', workspaceId: workspace.id, tier: 'pro' }),
      'workspace.tier',
    );
    expect(plansOf(usageIdentifierOf(prefix, workspace.id, 'pro'))).toEqual(['pro']);
  });

  it("reconciles (the schedule's command) and removes the pool through the key function", async () => {
    const { workspace } = resultOf(
      await admin()({ command: 'workspace.create', name: 'Lost' }),
      'workspace.create',
    );
    // Its key lost altogether (as if its creation had failed): the scheduled command makes it again.
    const value = usageIdentifierOf(prefix, workspace.id, 'standard');
    const lost = [...state.keys.values()].find((k) => k.name === value);
    state.keys.delete(lost?.id ?? '');
    state.plans.get(planIds.standard)?.delete(lost?.id ?? '');
    const { keys, repaired } = resultOf(await admin()({ command: 'usage.reconcile' }), 'usage.reconcile');
    expect(repaired).toBe(1);
    expect(keys).toBeGreaterThanOrEqual(2);
    expect(plansOf(value)).toEqual(['standard']);
    // Nothing missing: nothing made.
    expect(resultOf(await admin()({ command: 'usage.reconcile' }), 'usage.reconcile').repaired).toBe(0);
    const { usagePlanKeysThrough } = await import('#functions/usage-plan-keys-remote.ts');
    const remote = usagePlanKeysThrough('keys-function');
    const removed = await remote.removeAll();
    expect(removed).toBeGreaterThanOrEqual(2);
    expect([...state.keys.values()].filter((k) => k.name?.startsWith(`vaw_${prefix}_`))).toEqual([]);
  });

  it('fails the command when the key function fails, and the key function refuses a malformed request', async () => {
    functions.set('broken', async () => {
      throw new Error('API Gateway refused');
    });
    const broken = build(
      { database, logger: silentLogger },
      adminSettingsFromEnv({ STAGE: 'prod', [USAGE_PLAN_KEYS_FUNCTION_ENV]: 'broken' }),
    );
    const answer = await broken({ command: 'workspace.create', name: 'Refused' });
    expect(answer.ok).toBe(false);
    const { handler } = await import('#functions/usage-plan-keys-handler.ts');
    await expect(handler({ op: 'place', workspaceId: 'ws', tier: 'platinum' })).rejects.toThrow();
    await expect(handler({ op: 'drop' })).rejects.toThrow();
  });
});
