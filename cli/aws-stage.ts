/**
 * A deployed stage, as the CLIs reach it: its stack outputs through CloudFormation, its admin
 * function through `lambda:InvokeFunction`. Credentials and region come from the usual AWS
 * environment (AWS_PROFILE, AWS_REGION, …); AWS_ENDPOINT_URL_* point the SDK elsewhere (tests).
 */

import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import * as v from 'valibot';
import { AdminAnswer, type AdminCommand } from '#contract/admin.ts';
import { usageKeyNamePrefix } from '#contract/tiers.ts';
import { PREVIEW_BASE, PROD, SANDBOX, STACK_PREFIX, sanitiseStage } from '#infra/stage-name.ts';
import { CliError } from './common.ts';

// The SDK warns on every Node 20 run that its releases after January 2027 need Node 22; the
// versions package-lock.json pins run on Node 20, which this project supports.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

export interface StageOutputs {
  stage: string;
  stackName: string;
  apiUrl?: string;
  adminFunctionName?: string;
  /** Each tier's usage plan id (the `UsagePlanIds` output), where the stack has it. */
  usagePlanIds?: Record<string, string>;
  /** The stage's usage key prefix (the `UsageKeyPrefix` output, contract/tiers.ts), where the stack has it. */
  usageKeyPrefix?: string;
}

/** The SDK's complaints about the environment, as something to do about it. */
function explainAwsError(error: unknown, what: string): unknown {
  const { name, message } = error as { name?: string; message?: string };
  if (name === 'CredentialsProviderError' || /credential/i.test(message ?? '')) {
    return new CliError(`${what}: no AWS credentials (set AWS_PROFILE or the AWS_* variables)`);
  }
  if (/region is missing/i.test(message ?? '')) {
    return new CliError(`${what}: no AWS region (set AWS_REGION)`);
  }
  if (name === 'AccessDeniedException' || name === 'AccessDenied') {
    return new CliError(`${what}: access denied (${message})`);
  }
  return error;
}

/** `VoiceAgentAdmin-<stage>`'s outputs, with the stage name as `npm run deploy -- -c stage=` reads it. */
export async function stageOutputs(rawStage: string): Promise<StageOutputs> {
  const stage = sanitiseStage(rawStage);
  const stackName = `${STACK_PREFIX}-${stage}`;
  const client = new CloudFormationClient({});
  try {
    const { Stacks } = await client.send(new DescribeStacksCommand({ StackName: stackName }));
    const outputs = new Map((Stacks?.[0]?.Outputs ?? []).map((o) => [o.OutputKey, o.OutputValue]));
    return {
      stage,
      stackName,
      apiUrl: outputs.get('ApiUrl'),
      adminFunctionName: outputs.get('AdminFunctionName'),
      usagePlanIds: parsePlanIds(outputs.get('UsagePlanIds')),
      usageKeyPrefix: outputs.get('UsageKeyPrefix') || undefined,
    };
  } catch (error) {
    if ((error as { name?: string }).name === 'ValidationError' && /does not exist/.test(String(error))) {
      throw new CliError(
        `stack ${stackName} does not exist in this account and region: is "${stage}" deployed?`,
      );
    }
    throw explainAwsError(error, `cannot read stack ${stackName}`);
  } finally {
    client.destroy();
  }
}

const PlanIds = v.record(v.string(), v.pipe(v.string(), v.minLength(1)));
const parsePlanIds = (json: string | undefined) => {
  if (!json) return undefined;
  const parsed = v.safeParse(PlanIds, JSON.parse(json));
  return parsed.success ? parsed.output : undefined;
};

/**
 * Before a preview's stack is deleted: deletes the API keys the admin function created
 * (functions/usage-plan-keys.ts), found in the preview's usage plans and by their names' prefix, so a
 * key whose placement in a plan failed goes too. CloudFormation did not create them, so it would
 * leave them behind, counting against the account's 10,000. Deleting a key takes it out of its plan.
 * Idempotent: a stack already gone, or a key already deleted, is nothing to do. A stack deployed
 * before the `UsageKeyPrefix` output has its keys found through its plans only.
 */
export async function deletePreviewKeys(rawStage: string): Promise<{ deleted: number; stackName: string }> {
  const stage = sanitiseStage(rawStage);
  const stackName = `${STACK_PREFIX}-${stage}`;
  if (stage === PROD || stage === PREVIEW_BASE) throw new CliError(`${stackName} is not a preview`);
  let outputs: StageOutputs;
  try {
    outputs = await stageOutputs(stage);
  } catch (error) {
    if (error instanceof CliError && /does not exist/.test(error.message)) return { deleted: 0, stackName };
    throw error;
  }
  if (!outputs.usagePlanIds)
    throw new CliError(`stack ${stackName} has no UsagePlanIds output: deploy this version first`);
  const { APIGatewayClient, DeleteApiKeyCommand, GetApiKeysCommand, GetUsagePlanKeysCommand } = await import(
    '@aws-sdk/client-api-gateway'
  );
  const client = new APIGatewayClient({});
  const keyIds = new Set<string>();
  const collect = (items: Array<{ id?: string }> | undefined) => {
    for (const key of items ?? []) if (key.id) keyIds.add(key.id);
  };
  let deleted = 0;
  try {
    for (const usagePlanId of Object.values(outputs.usagePlanIds)) {
      let position: string | undefined;
      do {
        const page = await client.send(new GetUsagePlanKeysCommand({ usagePlanId, position, limit: 500 }));
        collect(page.items);
        position = page.position;
      } while (position);
    }
    if (outputs.usageKeyPrefix) {
      const nameQuery = usageKeyNamePrefix(outputs.usageKeyPrefix);
      let position: string | undefined;
      do {
        const page = await client.send(new GetApiKeysCommand({ nameQuery, position, limit: 500 }));
        // Whatever nameQuery matches, only names of this stage's pool are deleted.
        collect(page.items?.filter((key) => key.name?.startsWith(nameQuery)));
        position = page.position;
      } while (position);
    }
    for (const apiKey of keyIds) {
      try {
        await client.send(new DeleteApiKeyCommand({ apiKey }));
        deleted += 1;
      } catch (error) {
        if ((error as { name?: string }).name !== 'NotFoundException') throw error;
      }
    }
  } catch (error) {
    throw explainAwsError(error, `cannot delete the API keys of ${stackName}`);
  } finally {
    client.destroy();
  }
  return { deleted, stackName };
}

export async function adminFunctionOf(
  rawStage: string,
): Promise<StageOutputs & { adminFunctionName: string }> {
  const outputs = await stageOutputs(rawStage);
  if (!outputs.adminFunctionName) {
    throw new CliError(
      `stack ${outputs.stackName} has no AdminFunctionName output: deploy this version first`,
    );
  }
  return outputs as StageOutputs & { adminFunctionName: string };
}

/** One synchronous invocation of the admin function; its answer checked against the contract. */
export async function invokeAdmin(functionName: string, command: AdminCommand): Promise<AdminAnswer> {
  const client = new LambdaClient({});
  try {
    const response = await client.send(
      new InvokeCommand({
        FunctionName: functionName,
        Payload: new TextEncoder().encode(JSON.stringify(command)),
      }),
    );
    const text = new TextDecoder().decode(response.Payload ?? new Uint8Array());
    if (response.FunctionError) {
      const detail = (() => {
        try {
          return (JSON.parse(text) as { errorMessage?: string }).errorMessage ?? text;
        } catch {
          return text;
        }
      })();
      throw new CliError(`the admin function ${functionName} failed: ${detail}`);
    }
    const parsed = v.safeParse(AdminAnswer, JSON.parse(text || 'null'));
    if (!parsed.success)
      throw new CliError(`the admin function ${functionName} answered something unexpected`);
    return parsed.output as AdminAnswer;
  } catch (error) {
    if ((error as { name?: string }).name === 'ResourceNotFoundException') {
      throw new CliError(`no function ${functionName}: is the stack fully deployed?`);
    }
    throw explainAwsError(error, `cannot invoke ${functionName}`);
  } finally {
    client.destroy();
  }
}

/** One preview stack as `npm run stage -- list` shows it. */
export interface PreviewStack {
  stage: string;
  stackName: string;
  status: string;
  createdAt: Date;
  /** The last deploy (CloudFormation's LastUpdatedTime), else the creation. */
  lastDeployAt: Date;
  /** The stack's `DatabaseName` output: its own database on the preview base, or its own cluster's. */
  database?: string;
}

const DAY_MS = 86_400_000;
export const daysBetween = (from: Date, to: Date) => Math.floor((to.getTime() - from.getTime()) / DAY_MS);

/** Every preview stack: `VoiceAgentAdmin-*` but prod, the preview base and the sandbox, top-level only. */
export async function listPreviews(): Promise<PreviewStack[]> {
  const client = new CloudFormationClient({});
  const found: PreviewStack[] = [];
  try {
    let NextToken: string | undefined;
    do {
      const page = await client.send(new DescribeStacksCommand({ NextToken }));
      for (const stack of page.Stacks ?? []) {
        const name = stack.StackName ?? '';
        const stage = name.slice(STACK_PREFIX.length + 1);
        if (
          !name.startsWith(`${STACK_PREFIX}-`) ||
          stack.ParentId ||
          stage === PROD ||
          stage === PREVIEW_BASE ||
          stage === SANDBOX
        ) {
          continue;
        }
        const createdAt = stack.CreationTime ?? new Date(0);
        found.push({
          stage,
          stackName: name,
          status: stack.StackStatus ?? 'UNKNOWN',
          createdAt,
          lastDeployAt: stack.LastUpdatedTime ?? createdAt,
          database: stack.Outputs?.find((o) => o.OutputKey === 'DatabaseName')?.OutputValue,
        });
      }
      NextToken = page.NextToken;
    } while (NextToken);
  } catch (error) {
    throw explainAwsError(error, 'cannot list the preview stacks');
  } finally {
    client.destroy();
  }
  return found.sort((a, b) => a.stage.localeCompare(b.stage));
}
