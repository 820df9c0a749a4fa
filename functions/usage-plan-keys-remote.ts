/**
 * The admin function's `UsagePlanKeys` when deployed: it runs in the isolated subnets, which reach
 * Lambda through an interface endpoint but have no route to API Gateway's management API, so it
 * invokes the key function outside the VPC (functions/usage-plan-keys-handler.ts) and waits for it.
 */
import type { LambdaClient } from '@aws-sdk/client-lambda';
import type { UsagePlanKeys } from './usage-plan-keys.ts';
import type { KeyRequest } from './usage-plan-keys-handler.ts';

/** The variable the stack sets: the key function's name. */
export const USAGE_PLAN_KEYS_FUNCTION_ENV = 'USAGE_PLAN_KEYS_FUNCTION';

export function usagePlanKeysThrough(
  functionName: string,
  makeClient: () => Promise<LambdaClient> = async () =>
    new (await import('@aws-sdk/client-lambda')).LambdaClient({}),
): UsagePlanKeys {
  let client: LambdaClient | undefined;
  async function invoke(request: KeyRequest): Promise<number> {
    const { InvokeCommand } = await import('@aws-sdk/client-lambda');
    client ??= await makeClient();
    const answer = await client.send(
      new InvokeCommand({
        FunctionName: functionName,
        Payload: new TextEncoder().encode(JSON.stringify(request)),
      }),
    );
    const text = answer.Payload ? new TextDecoder().decode(answer.Payload) : '';
    if (answer.FunctionError)
      throw new Error(`usage keys (${request.op}) failed: ${text || answer.FunctionError}`);
    return (JSON.parse(text) as { count: number }).count;
  }
  return {
    async place(workspaceId, tier) {
      await invoke({ op: 'place', workspaceId, tier });
    },
    reconcile: (shards) => invoke({ op: 'reconcile', shards: [...shards] }),
    removeAll: () => invoke({ op: 'removeAll' }),
  };
}

/** From the stack's USAGE_PLAN_KEYS_FUNCTION; undefined where it is not set. */
export const usagePlanKeysThroughFromEnv = (env = process.env): UsagePlanKeys | undefined => {
  const name = env[USAGE_PLAN_KEYS_FUNCTION_ENV];
  return name ? usagePlanKeysThrough(name) : undefined;
};
