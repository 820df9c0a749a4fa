/**
 * A local server seen as a deployed stage: a CloudFormation stack `VoiceAgentAdmin-<stage>` whose
 * outputs are the gateway's URL and the admin function's name, and that function, the very
 * `build(deps)` the stack deploys, over the same database. The CLIs' `--stage` path then runs
 * unchanged through the real AWS SDK (AWS_ENDPOINT_URL_* pointed here, any credentials).
 */
import { build as buildAdmin } from '#functions/admin.ts';
import type { Deps } from '#functions/deps.ts';
import { STACK_PREFIX } from '#infra/stage-name.ts';
import { type AwsEndpoint, startAwsEndpoint } from './aws-endpoint.ts';

export interface LocalStageOptions {
  deps: Deps;
  /** The gateway's base URL: the stack's ApiUrl output. */
  apiUrl: string;
  /** Default `local`. */
  stage?: string;
  /** Whether `seed.demo` is allowed, as on a preview (default) or refused, as on prod. */
  demoSeed?: boolean;
  port?: number;
  host?: string;
}

export interface LocalStage extends AwsEndpoint {
  stage: string;
  stackName: string;
  functionName: string;
  /** What a process needs to reach this stage through the AWS SDK. */
  env: Record<string, string>;
}

export async function startLocalStage(options: LocalStageOptions): Promise<LocalStage> {
  const stage = options.stage ?? 'local';
  const stackName = `${STACK_PREFIX}-${stage}`;
  const functionName = `${stackName}-Admin`;
  const admin = buildAdmin(options.deps, { stage, demoSeed: options.demoSeed ?? true });
  const endpoint = await startAwsEndpoint({
    functions: new Map([[functionName, admin]]),
    stacks: new Map([
      [
        stackName,
        {
          ApiUrl: options.apiUrl.endsWith('/') ? options.apiUrl : `${options.apiUrl}/`,
          AdminFunctionName: functionName,
        },
      ],
    ]),
    port: options.port,
    host: options.host,
  });
  return {
    ...endpoint,
    stage,
    stackName,
    functionName,
    env: {
      AWS_ENDPOINT_URL_LAMBDA: endpoint.url,
      AWS_ENDPOINT_URL_CLOUDFORMATION: endpoint.url,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
    },
  };
}
