import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deferredUsageKeyValue, usageIdentifierOf } from '#contract/tiers.ts';
import { usagePlanKeys } from '#functions/usage-plan-keys.ts';
import { localUsagePlans } from '#local-aws/api-gateway-endpoint.ts';
import { type AwsEndpoint, startAwsEndpoint } from '#local-aws/aws-endpoint.ts';
import { awsEnv, runCli } from '#test/helpers/cli.ts';

const preview = { free: 'x-free', standard: 'x-standard', pro: 'x-pro' } as const;
const other = { free: 'y-free', standard: 'y-standard', pro: 'y-pro' } as const;
// A preview stack's outputs the teardown reads (infra/stack.ts): its key prefix is its stack name.
const outputsOf = (stackName: string, plans: Record<string, string>) => ({
  UsagePlanIds: JSON.stringify(plans),
  UsageKeyPrefix: stackName,
});

/**
 * `npm run stage -- teardown <stage>`, what the reaper runs before destroying a preview: the API
 * keys the preview's admin function made at run time, found through its stack's `UsagePlanIds`
 * output and by the names its `UsageKeyPrefix` output begins, deleted through the real SDKs against
 * the local CloudFormation and API Gateway stand-ins.
 */
describe('npm run stage -- teardown', () => {
  let endpoint: AwsEndpoint;
  let env: NodeJS.ProcessEnv;
  const state = localUsagePlans([...Object.values(preview), ...Object.values(other)]);
  const stacks = new Map<string, Record<string, string>>([
    ['VoiceAgentAdmin-feature-x', outputsOf('VoiceAgentAdmin-feature-x', preview)],
    ['VoiceAgentAdmin-feature-y', outputsOf('VoiceAgentAdmin-feature-y', other)],
    ['VoiceAgentAdmin-old', {}],
  ]);
  beforeAll(async () => {
    endpoint = await startAwsEndpoint({
      functions: new Map(),
      stacks,
      usagePlans: state,
    });
    const credentials = { accessKeyId: 'AKIDSTANDIN', secretAccessKey: 'stand-in' };
    const client = async () =>
      new APIGatewayClient({ endpoint: endpoint.url, region: 'eu-west-1', credentials });
    // As the admin functions of two previews do: one key per workspace in its tier's plan.
    await usagePlanKeys(preview, 'VoiceAgentAdmin-feature-x', client).place(
      'wsfeaturexone0000000000000',
      'standard',
    );
    await usagePlanKeys(preview, 'VoiceAgentAdmin-feature-x', client).place(
      'wsfeaturextwo0000000000000',
      'pro',
    );
    await usagePlanKeys(other, 'VoiceAgentAdmin-feature-y', client).place(
      'wsfeatureyone0000000000000',
      'standard',
    );
    // A key created whose placement failed (its plan refused it): in no plan, found by its name only.
    // One of this preview's, one of the other's, one of a preview whose name begins with this one's.
    for (const prefix of [
      'VoiceAgentAdmin-feature-x',
      'VoiceAgentAdmin-feature-y',
      'VoiceAgentAdmin-feature-x-2',
    ]) {
      const unplaced = usagePlanKeys({ ...preview, free: 'no-such-plan' }, prefix, client);
      await expect(unplaced.place('wsunplaced0000000000000000', 'free')).rejects.toThrow(/Usage Plan/);
    }
    env = awsEnv({
      AWS_ENDPOINT_URL: endpoint.url,
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    });
  });
  afterAll(() => endpoint?.close());
  const keyNames = () => [...state.keys.values()].map((key) => key.name).sort();
  // The other preview's pool: its workspace's key and its deferred key (contract/tiers.ts).
  const othersKeys = [
    usageIdentifierOf('VoiceAgentAdmin-feature-y', 'wsfeatureyone0000000000000', 'standard'),
    deferredUsageKeyValue('VoiceAgentAdmin-feature-y'),
    usageIdentifierOf('VoiceAgentAdmin-feature-y', 'wsunplaced0000000000000000', 'free'),
    usageIdentifierOf('VoiceAgentAdmin-feature-x-2', 'wsunplaced0000000000000000', 'free'),
  ].sort();

  it("deletes the preview's API keys, placed in a plan or not, and leaves every other preview's", async () => {
    // This preview's two workspaces' pool keys, its deferred key and its unplaced key; the others' four.
    expect(keyNames()).toHaveLength(8);
    const unplaced = usageIdentifierOf('VoiceAgentAdmin-feature-x', 'wsunplaced0000000000000000', 'free');
    expect(keyNames()).toContain(unplaced);
    expect(
      [...state.plans.values()].some((plan) => [...plan].some((id) => state.keys.get(id)?.name === unplaced)),
    ).toBe(false);
    const result = await runCli('stage', ['teardown', 'feature/X'], env);
    expect(result).toMatchObject({ code: 0, stdout: 'VoiceAgentAdmin-feature-x: 4 API keys deleted\n' });
    expect(keyNames()).toEqual(othersKeys);
    for (const plan of Object.values(preview)) expect(state.plans.get(plan)?.size).toBe(0);
    expect(state.plans.get(other.standard)?.size).toBe(1);
    expect(state.plans.get(other.pro)?.size).toBe(1);
  });

  it('has nothing to do when run again, or when the stack is already gone', async () => {
    expect((await runCli('stage', ['teardown', 'feature-x'], env)).stdout).toBe(
      'VoiceAgentAdmin-feature-x: 0 API keys deleted\n',
    );
    expect((await runCli('stage', ['teardown', 'gone'], env)).stdout).toBe(
      'VoiceAgentAdmin-gone: 0 API keys deleted\n',
    );
  });

  it('refuses prod and the preview base, and a stack without the output', async () => {
    for (const stage of ['prod', 'previews']) {
      const refused = await runCli('stage', ['teardown', stage], env);
      expect(refused.code, stage).not.toBe(0);
      expect(refused.stderr, stage).toMatch(/is not a preview/);
    }
    const old = await runCli('stage', ['teardown', 'old'], env);
    expect(old.code).not.toBe(0);
    expect(old.stderr).toMatch(/no UsagePlanIds output/);
    expect(keyNames()).toEqual(othersKeys);
  });

  it('finds the keys of a stack deployed before the UsageKeyPrefix output through its plans only', async () => {
    stacks.set('VoiceAgentAdmin-feature-y', { UsagePlanIds: JSON.stringify(other) });
    const result = await runCli('stage', ['teardown', 'feature-y'], env);
    expect(result).toMatchObject({ code: 0, stdout: 'VoiceAgentAdmin-feature-y: 2 API keys deleted\n' });
    expect(keyNames()).toEqual(
      [
        usageIdentifierOf('VoiceAgentAdmin-feature-y', 'wsunplaced0000000000000000', 'free'),
        usageIdentifierOf('VoiceAgentAdmin-feature-x-2', 'wsunplaced0000000000000000', 'free'),
      ].sort(),
    );
  });
});
