import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AdminAnswer, AdminResults } from '#contract/admin.ts';
import {
  deferredUsageKeyValue,
  type TierName,
  tierNames,
  USAGE_KEY_SHARDS,
  usageIdentifierOf,
  usageShardOf,
} from '#contract/tiers.ts';
import type { DatabaseHandle } from '#db/client.ts';
import { adminSettingsFromEnv, build } from '#functions/admin.ts';
import { build as buildAuthorizer } from '#functions/authorizer.ts';
import { silentLogger } from '#functions/http/log.ts';
import type { AuthorizerEvent } from '#functions/http/types.ts';
import {
  poolShards,
  USAGE_KEY_PREFIX_ENV,
  USAGE_PLAN_IDS_ENV,
  usagePlanKeys,
  usagePlanKeysFromEnv,
  usageShardsOf,
} from '#functions/usage-plan-keys.ts';
import { localUsagePlans } from '#local-aws/api-gateway-endpoint.ts';
import { type AwsEndpoint, startAwsEndpoint } from '#local-aws/aws-endpoint.ts';
import { freshDatabase } from '#test/helpers/database.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

/** What the authorizer reads of its event: the Authorization header, and the method it allows. */
const authorizerEvent = (authorization: string) =>
  ({
    headers: { authorization },
    methodArn: 'arn:aws:execute-api:eu-west-1:000000000000:api/v1/GET/agents',
  }) as unknown as AuthorizerEvent;

const planIds = { free: 'plan-free', standard: 'plan-standard', pro: 'plan-pro' } as const;

function resultOf<C extends keyof typeof AdminResults>(answer: AdminAnswer, command: C) {
  if (!answer.ok) throw new Error(`expected ok, got ${JSON.stringify(answer.error)}`);
  return v.parse(AdminResults[command], answer.result);
}

const PREFIX = 'VoiceAgentAdmin-feature-x';

/** The admin function as deployed, its API Gateway calls made by the real SDK to the local stand-in. */
describe("the admin function keeps the stage's pool of usage keys in their tiers' plans", () => {
  let database: DatabaseHandle;
  let endpoint: AwsEndpoint;
  const state = localUsagePlans(Object.values(planIds));
  const saved = { ...process.env };
  let admin: ReturnType<typeof build>;

  /** The key of `value` (at most one), and the plans that hold it. */
  const placement = (value: string) => {
    const keys = [...state.keys.values()].filter((key) => key.name === value);
    const plans = tierNames.filter((tier) => keys.some((key) => state.plans.get(planIds[tier])?.has(key.id)));
    return { keys, plans };
  };
  const keyOf = (workspaceId: string, tier: TierName) => usageIdentifierOf(PREFIX, workspaceId, tier);

  beforeAll(async () => {
    database = await freshDatabase();
    endpoint = await startAwsEndpoint({ functions: new Map(), stacks: new Map(), usagePlans: state });
    Object.assign(process.env, {
      AWS_ENDPOINT_URL_API_GATEWAY: endpoint.url,
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
    });
    const env = {
      STAGE: 'feature-x',
      [USAGE_PLAN_IDS_ENV]: JSON.stringify(planIds),
      [USAGE_KEY_PREFIX_ENV]: PREFIX,
    };
    admin = build({ database, logger: silentLogger }, adminSettingsFromEnv(env));
  });
  afterAll(async () => {
    process.env = saved;
    await endpoint?.close();
    await database?.close();
  });

  it("places the workspace's key of the standard pool, its value what the authorizer answers", async () => {
    const { workspace } = resultOf(
      await admin({ command: 'workspace.create', name: 'Keyed' }),
      'workspace.create',
    );
    const value = keyOf(workspace.id, 'standard');
    const { keys, plans } = placement(value);
    expect(keys).toEqual([expect.objectContaining({ name: value, value, enabled: true })]);
    expect(plans).toEqual(['standard']);
    // The deferred key (database away) is in place too, in its plan.
    expect(placement(deferredUsageKeyValue(PREFIX)).plans).toEqual(['pro']);
    const { token } = resultOf(
      await admin({ command: 'token.create', workspaceId: workspace.id }),
      'token.create',
    );
    const authorize = buildAuthorizer({ database, logger: silentLogger }, { usageKeyPrefix: PREFIX });
    const answer = await authorize(authorizerEvent(`Bearer ${token}`));
    expect(answer.usageIdentifierKey).toBe(value);
    expect(answer.context).toMatchObject({ tier: 'standard', usageIdentifierKey: value });
  });

  it("meters a tier change on the new tier's key: nothing moves, every key stays in its own plan", async () => {
    const { workspace } = resultOf(
      await admin({ command: 'workspace.create', name: 'Mover' }),
      'workspace.create',
    );
    for (const tier of ['pro', 'free', 'free', 'standard'] as const) {
      resultOf(await admin({ command: 'workspace.tier', workspaceId: workspace.id, tier }), 'workspace.tier');
      expect(placement(keyOf(workspace.id, tier)).plans).toEqual([tier]);
    }
    for (const tier of tierNames) expect(placement(keyOf(workspace.id, tier)).keys).toHaveLength(1);
  });

  it('repairs a key that is missing or out of its plan on the next command, and by reconcile', async () => {
    const { workspace } = resultOf(
      await admin({ command: 'workspace.create', name: 'Repair' }),
      'workspace.create',
    );
    const value = keyOf(workspace.id, 'standard');
    const [key] = placement(value).keys;
    state.plans.get(planIds.standard)?.delete(key?.id ?? '');
    resultOf(
      await admin({ command: 'workspace.tier', workspaceId: workspace.id, tier: 'standard' }),
      'workspace.tier',
    );
    expect(placement(value).plans).toEqual(['standard']);
    // Gone altogether: the scheduled reconcile (every workspace's key) makes it again.
    state.keys.delete(key?.id ?? '');
    state.plans.get(planIds.standard)?.delete(key?.id ?? '');
    const swept = resultOf(await admin({ command: 'usage.reconcile' }), 'usage.reconcile');
    expect(swept.repaired).toBe(1);
    expect(placement(value).keys).toHaveLength(1);
    expect(placement(value).plans).toEqual(['standard']);
    // Out of its plan only: put back, not made twice.
    state.plans.get(planIds.standard)?.delete(placement(value).keys[0]?.id ?? '');
    expect(
      await usagePlanKeys(planIds, PREFIX).reconcile(usageShardsOf([{ id: workspace.id, tier: 'standard' }])),
    ).toBe(1);
    expect(placement(value)).toMatchObject({ keys: [expect.anything()], plans: ['standard'] });
    expect(resultOf(await admin({ command: 'usage.reconcile' }), 'usage.reconcile').repaired).toBe(0);
  });

  it('reconciles a whole pool in runs bounded in time, each going on where the last stopped', async () => {
    const pool = usagePlanKeys(planIds, 'VoiceAgentAdmin-pool');
    const shards = poolShards();
    expect(shards).toHaveLength(tierNames.reduce((n, tier) => n + USAGE_KEY_SHARDS[tier], 0));
    const some = shards.filter((_, i) => i % 500 === 0);
    // Past its time: repairs nothing (the next run will).
    expect(await pool.reconcile(some, { until: Date.now() - 1 })).toBe(0);
    expect(await pool.reconcile(some)).toBe(some.length + 1);
    expect(await pool.reconcile(some)).toBe(0);
    expect(await pool.removeAll()).toBe(some.length + 1);
  });

  it("tears the stage's pool down, and only this stage's", async () => {
    const other = usagePlanKeys(planIds, 'VoiceAgentAdmin-other');
    await other.place('00000000-0000-4000-8000-000000000001', 'free');
    const ours = [...state.keys.values()].filter((key) => key.name.startsWith(`vaw_${PREFIX}_`)).length;
    expect(ours).toBeGreaterThan(1);
    expect(await usagePlanKeys(planIds, PREFIX).removeAll()).toBe(ours);
    expect([...state.keys.values()].map((key) => key.name).filter((name) => name.includes(PREFIX))).toEqual(
      [],
    );
    for (const plan of state.plans.values()) for (const id of plan) expect(state.keys.has(id)).toBe(true);
    expect(
      [...state.keys.values()].filter((key) => key.name.startsWith('vaw_VoiceAgentAdmin-other_')),
    ).toHaveLength(2);
  });

  it('answers an error, not a crash, when API Gateway refuses (an unknown plan); the next command repairs', async () => {
    const broken = build(
      { database, logger: silentLogger },
      adminSettingsFromEnv({
        [USAGE_PLAN_IDS_ENV]: JSON.stringify({ ...planIds, pro: 'no-such-plan' }),
        [USAGE_KEY_PREFIX_ENV]: PREFIX,
      }),
    );
    const { workspace } = resultOf(
      await admin({ command: 'workspace.create', name: 'Refused' }),
      'workspace.create',
    );
    const answer = await broken({ command: 'workspace.tier', workspaceId: workspace.id, tier: 'pro' });
    expect(answer).toEqual({ ok: false, error: { code: 'internal', message: expect.any(String) } });
    resultOf(
      await admin({ command: 'workspace.tier', workspaceId: workspace.id, tier: 'pro' }),
      'workspace.tier',
    );
    expect(placement(keyOf(workspace.id, 'pro')).plans).toEqual(['pro']);
  });

  it('is off without USAGE_PLAN_IDS, and refuses a value that names not every tier or no prefix', () => {
    expect(usagePlanKeysFromEnv({})).toBeUndefined();
    expect(() =>
      usagePlanKeysFromEnv({
        [USAGE_PLAN_IDS_ENV]: JSON.stringify({ free: 'a' }),
        [USAGE_KEY_PREFIX_ENV]: PREFIX,
      }),
    ).toThrow();
    expect(() => usagePlanKeysFromEnv({ [USAGE_PLAN_IDS_ENV]: JSON.stringify(planIds) })).toThrow();
    expect(usageShardOf('x', 'free')).toBe(usageShardOf('x', 'free'));
  });
});
