import { randomBytes } from 'node:crypto';
import {
  CodeDeployClient,
  GetDeploymentTargetCommand,
  ListDeploymentTargetsCommand,
  PutLifecycleEventHookExecutionStatusCommand,
} from '@aws-sdk/client-codedeploy';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { TOKEN_PREFIX } from '#db/queries/api-keys.ts';

/**
 * CodeDeploy's pre-traffic hook of every API function (infra/constructs/releases.ts): before the
 * `live` alias sends any traffic to a new version, invoke that version once with a well-formed
 * bearer key that no workspace holds. A route function must look the key up in the database and
 * answer 401; the authorizer must deny it. So the new code loads, reads its secret, reaches the
 * database through its path (proxy or writer) and enforces authentication; a 5xx, a 503 (database
 * unreachable), a crash or a timeout fails the deployment, and CodeDeploy keeps the old version.
 * The full smoke suite (cli/smoke-checks.ts) needs real keys and runs over HTTP after the release.
 */

/** One event both kinds of function read: an HTTP API request (payload 2.0) and a REQUEST authorizer call. */
export function probeEvent(): Record<string, unknown> {
  const authorization = `Bearer ${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
  const requestId = `pre-traffic-${randomBytes(8).toString('hex')}`;
  return {
    version: '2.0',
    type: 'REQUEST',
    routeKey: '$default',
    rawPath: '/',
    rawQueryString: '',
    identitySource: [authorization],
    headers: { authorization, 'content-type': 'application/json', 'user-agent': 'pre-traffic-hook' },
    isBase64Encoded: false,
    requestContext: {
      requestId,
      http: { method: 'GET', path: '/', sourceIp: '127.0.0.1', userAgent: 'pre-traffic-hook' },
      // As when the authorizer could not reach the database: the route then authenticates by itself.
      authorizer: { lambda: { deferred: 'pre-traffic' } },
    },
  };
}

export interface Invocation {
  readonly FunctionError?: string;
  readonly Payload?: Uint8Array;
}

/** Whether a version answered the probe as a healthy route function or authorizer does. */
export function judge(invocation: Invocation): { ok: boolean; detail: string } {
  const text = invocation.Payload ? new TextDecoder().decode(invocation.Payload) : '';
  if (invocation.FunctionError)
    return { ok: false, detail: `${invocation.FunctionError}: ${text.slice(0, 300)}` };
  let answer: { statusCode?: number; isAuthorized?: boolean; headers?: Record<string, string> };
  try {
    answer = JSON.parse(text);
  } catch {
    return { ok: false, detail: `not JSON: ${text.slice(0, 300)}` };
  }
  if (answer?.isAuthorized === false) return { ok: true, detail: 'authorizer denied an unknown key' };
  const type = answer?.headers?.['content-type'] ?? '';
  if (answer?.statusCode === 401 && type.startsWith('application/problem+json')) {
    return { ok: true, detail: 'route answered 401 to an unknown key' };
  }
  return { ok: false, detail: `expected a 401 problem or a denial, got ${text.slice(0, 300)}` };
}

export interface HookEvent {
  readonly DeploymentId: string;
  readonly LifecycleEventHookExecutionId: string;
}
type Log = (message: string, fields: Record<string, unknown>) => void;

export const build =
  (clients: { codedeploy: Pick<CodeDeployClient, 'send'>; lambda: Pick<LambdaClient, 'send'> }, log: Log) =>
  async (event: HookEvent): Promise<{ status: 'Succeeded' | 'Failed' }> => {
    const { codedeploy, lambda } = clients;
    let status: 'Succeeded' | 'Failed' = 'Failed';
    try {
      const { targetIds = [] } = await codedeploy.send(
        new ListDeploymentTargetsCommand({ deploymentId: event.DeploymentId }),
      );
      if (targetIds.length === 0) throw new Error('the deployment has no target');
      const results = await Promise.all(
        targetIds.map(async (targetId) => {
          const { deploymentTarget } = await codedeploy.send(
            new GetDeploymentTargetCommand({ deploymentId: event.DeploymentId, targetId }),
          );
          const info = deploymentTarget?.lambdaTarget?.lambdaFunctionInfo;
          if (!info?.functionName || !info.targetVersion)
            throw new Error(`target ${targetId} names no version`);
          const invocation = await lambda.send(
            new InvokeCommand({
              FunctionName: info.functionName,
              Qualifier: info.targetVersion,
              Payload: new TextEncoder().encode(JSON.stringify(probeEvent())),
            }),
          );
          const verdict = judge(invocation);
          log('pre-traffic probe', { function: info.functionName, version: info.targetVersion, ...verdict });
          return verdict.ok;
        }),
      );
      if (results.every(Boolean)) status = 'Succeeded';
    } catch (error) {
      log('pre-traffic hook failed', { error: error instanceof Error ? error.message : String(error) });
    }
    await codedeploy.send(
      new PutLifecycleEventHookExecutionStatusCommand({
        deploymentId: event.DeploymentId,
        lifecycleEventHookExecutionId: event.LifecycleEventHookExecutionId,
        status,
      }),
    );
    return { status };
  };

export const handler = build(
  { codedeploy: new CodeDeployClient({}), lambda: new LambdaClient({}) },
  (message, fields) => console.log(JSON.stringify({ level: 'info', message, ...fields })),
);
