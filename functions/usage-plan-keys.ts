/**
 * The admin function's side of per-workspace limits, deployed: one API Gateway API key per
 * workspace, its value the workspace's usage identifier (which the authorizer answers), in exactly
 * its tier's usage plan (infra/constructs/usage-plans.ts). `place` is idempotent, so running
 * `workspace.tier` again repairs a key that a failed call left out of place.
 */
import type { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import * as v from 'valibot';
import { type TierName, tierNames, usageIdentifierOf } from '#contract/tiers.ts';

/** The deployed side of tiers: one API key per workspace, in exactly its tier's usage plan. */
export interface UsagePlanKeys {
  /** Idempotent: creates the key when missing, leaves every other plan, joins `tier`'s. */
  place(workspaceId: string, tier: TierName): Promise<void>;
}

/** The variable the stack sets: each tier's usage plan id, as JSON. */
export const USAGE_PLAN_IDS_ENV = 'USAGE_PLAN_IDS';

const PlanIds = v.strictObject(
  Object.fromEntries(tierNames.map((tier) => [tier, v.pipe(v.string(), v.minLength(1))])) as Record<
    TierName,
    v.SchemaWithPipe<readonly [v.StringSchema<undefined>, v.MinLengthAction<string, 1, undefined>]>
  >,
);

/** API Gateway's error names that mean "already so": the key is already in the plan, or not in it. */
const ignore = (name: 'ConflictException' | 'NotFoundException') => (error: unknown) => {
  if ((error as Error | null)?.name !== name) throw error;
};

// Loaded on first use: the Lambda runtime provides the SDK (bundles leave @aws-sdk/* out), and a
// stage without usage plans, or a CLI run locally, never needs it.
const sdk = () => import('@aws-sdk/client-api-gateway');

export function usagePlanKeys(
  planIds: Readonly<Record<TierName, string>>,
  makeClient: () => Promise<APIGatewayClient> = async () => new (await sdk()).APIGatewayClient({}),
): UsagePlanKeys {
  let client: APIGatewayClient | undefined;
  async function keyIdOf(workspaceId: string): Promise<string> {
    const { CreateApiKeyCommand, GetApiKeysCommand } = await sdk();
    client ??= await makeClient();
    const name = usageIdentifierOf(workspaceId);
    // The name query matches prefixes; names are the same length, so this is the one key or none.
    const found = await client.send(new GetApiKeysCommand({ nameQuery: name, limit: 500 }));
    const existing = found.items?.find((key) => key.name === name)?.id;
    if (existing) return existing;
    const created = await client.send(
      new CreateApiKeyCommand({
        name,
        value: name,
        enabled: true,
        description: `Usage identifier of workspace ${workspaceId}; callers never send it.`,
      }),
    );
    if (!created.id) throw new Error('CreateApiKey answered no id');
    return created.id;
  }

  return {
    async place(workspaceId, tier) {
      const keyId = await keyIdOf(workspaceId);
      const { CreateUsagePlanKeyCommand, DeleteUsagePlanKeyCommand } = await sdk();
      const api = client as APIGatewayClient;
      // Leave the other plans first: API Gateway refuses a key in two plans of the same stage. Until
      // the join, the workspace's requests are refused (403): a tier change is an operator's act.
      for (const other of tierNames.filter((name) => name !== tier)) {
        await api
          .send(new DeleteUsagePlanKeyCommand({ usagePlanId: planIds[other], keyId }))
          .catch(ignore('NotFoundException'));
      }
      await api
        .send(new CreateUsagePlanKeyCommand({ usagePlanId: planIds[tier], keyId, keyType: 'API_KEY' }))
        .catch(ignore('ConflictException'));
    },
  };
}

/** From the stack's USAGE_PLAN_IDS; undefined where it is not set (locally). A bad value throws. */
export function usagePlanKeysFromEnv(env = process.env): UsagePlanKeys | undefined {
  const raw = env[USAGE_PLAN_IDS_ENV];
  if (!raw) return undefined;
  return usagePlanKeys(v.parse(PlanIds, JSON.parse(raw)));
}
