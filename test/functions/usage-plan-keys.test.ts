import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AdminAnswer, AdminResults } from '#contract/admin.ts';
import { tierNames } from '#contract/tiers.ts';
import type { DatabaseHandle } from '#db/client.ts';
import { adminSettingsFromEnv, build } from '#functions/admin.ts';
import { build as buildAuthorizer } from '#functions/authorizer.ts';
import { silentLogger } from '#functions/http/log.ts';
import type { AuthorizerEvent } from '#functions/http/types.ts';
import { USAGE_PLAN_IDS_ENV, usagePlanKeysFromEnv } from '#functions/usage-plan-keys.ts';
import { localUsagePlans } from '#infra/local/api-gateway-endpoint.ts';
import { type AwsEndpoint, startAwsEndpoint } from '#infra/local/aws-endpoint.ts';
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

/** The admin function as deployed, its API Gateway calls made by the real SDK to the local stand-in. */
describe("the admin function keeps each workspace's API key in its tier's usage plan", () => {
  let database: DatabaseHandle;
  let endpoint: AwsEndpoint;
  const state = localUsagePlans(Object.values(planIds));
  const saved = { ...process.env };
  let admin: ReturnType<typeof build>;

  /** Which plans hold the workspace's key, and how many keys carry its name. */
  const placement = (workspaceId: string) => {
    const keys = [...state.keys.values()].filter((key) => key.name === `vaw_${workspaceId}`);
    const plans = tierNames.filter((tier) => keys.some((key) => state.plans.get(planIds[tier])?.has(key.id)));
    return { keys, plans };
  };

  beforeAll(async () => {
    database = await freshDatabase();
    endpoint = await startAwsEndpoint({ functions: new Map(), stacks: new Map(), usagePlans: state });
    Object.assign(process.env, {
      AWS_ENDPOINT_URL_API_GATEWAY: endpoint.url,
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
    });
    const env = { STAGE: 'feature-x', [USAGE_PLAN_IDS_ENV]: JSON.stringify(planIds) };
    admin = build({ database, logger: silentLogger }, adminSettingsFromEnv(env));
  });
  afterAll(async () => {
    process.env = saved;
    await endpoint?.close();
    await database?.close();
  });

  it('creates the key with the workspace, in the standard plan, its value what the authorizer answers', async () => {
    const { workspace } = resultOf(
      await admin({ command: 'workspace.create', name: 'Keyed' }),
      'workspace.create',
    );
    const { keys, plans } = placement(workspace.id);
    expect(keys).toEqual([
      expect.objectContaining({ name: `vaw_${workspace.id}`, value: `vaw_${workspace.id}`, enabled: true }),
    ]);
    expect(plans).toEqual(['standard']);
    const { token } = resultOf(
      await admin({ command: 'token.create', workspaceId: workspace.id }),
      'token.create',
    );
    const answer = await buildAuthorizer({ database, logger: silentLogger })(
      authorizerEvent(`Bearer ${token}`),
    );
    expect(answer.context).toMatchObject({ tier: 'standard', usageIdentifierKey: keys[0]?.value });
  });

  it('moves the same key when the tier changes, and a repeated move changes nothing', async () => {
    const { workspace } = resultOf(
      await admin({ command: 'workspace.create', name: 'Mover' }),
      'workspace.create',
    );
    const [before] = placement(workspace.id).keys;
    for (const tier of ['pro', 'free', 'free'] as const) {
      resultOf(await admin({ command: 'workspace.tier', workspaceId: workspace.id, tier }), 'workspace.tier');
      const { keys, plans } = placement(workspace.id);
      expect(keys.map((key) => key.id)).toEqual([before?.id]);
      expect(plans).toEqual([tier]);
    }
  });

  it('repairs a key that is missing or out of place', async () => {
    const { workspace } = resultOf(
      await admin({ command: 'workspace.create', name: 'Repair' }),
      'workspace.create',
    );
    const [key] = placement(workspace.id).keys;
    state.plans.get(planIds.standard)?.delete(key?.id ?? '');
    resultOf(
      await admin({ command: 'workspace.tier', workspaceId: workspace.id, tier: 'standard' }),
      'workspace.tier',
    );
    expect(placement(workspace.id).plans).toEqual(['standard']);
    state.keys.delete(key?.id ?? '');
    state.plans.get(planIds.standard)?.delete(key?.id ?? '');
    resultOf(
      await admin({ command: 'workspace.tier', workspaceId: workspace.id, tier: 'pro' }),
      'workspace.tier',
    );
    const repaired = placement(workspace.id);
    expect(repaired.keys).toHaveLength(1);
    expect(repaired.plans).toEqual(['pro']);
  });

  it('answers an error, not a crash, when API Gateway refuses (an unknown plan)', async () => {
    const broken = build(
      { database, logger: silentLogger },
      adminSettingsFromEnv({ [USAGE_PLAN_IDS_ENV]: JSON.stringify({ ...planIds, pro: 'no-such-plan' }) }),
    );
    const { workspace } = resultOf(
      await broken({ command: 'workspace.create', name: 'Refused' }),
      'workspace.create',
    );
    const answer = await broken({ command: 'workspace.tier', workspaceId: workspace.id, tier: 'pro' });
    expect(answer).toEqual({ ok: false, error: { code: 'internal', message: expect.any(String) } });
  });

  it('is off without USAGE_PLAN_IDS, and refuses a value that names not every tier', () => {
    expect(usagePlanKeysFromEnv({})).toBeUndefined();
    expect(() => usagePlanKeysFromEnv({ [USAGE_PLAN_IDS_ENV]: JSON.stringify({ free: 'a' }) })).toThrow();
  });
});
