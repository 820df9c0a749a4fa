import { randomBytes } from 'node:crypto';
import {
  CodeDeployClient,
  GetDeploymentTargetCommand,
  ListDeploymentTargetsCommand,
  PutLifecycleEventHookExecutionStatusCommand,
} from '@aws-sdk/client-codedeploy';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { TOKEN_PREFIX } from '#db/queries/api-keys.ts';
import { INVALID_KEY, problemType } from './http/problem.ts';

/**
 * CodeDeploy's pre-traffic hook of every API function (infra/constructs/releases.ts): before the
 * `live` alias sends any traffic to a new version, invoke that version once with a well-formed
 * bearer key that no workspace holds. A route function must look the key up in the database and
 * answer the 403 `invalid-key` problem (what the authorizer's deny gives); the authorizer must deny
 * it. So the new code loads, reads its secret, reaches the database through its path (proxy or
 * writer) and enforces authentication; a 5xx, a 503 (database unreachable), a crash or a timeout
 * fails the deployment, and CodeDeploy keeps the old version.
 * The full smoke suite (cli/smoke-checks.ts) needs real keys and runs over HTTP after the release.
 */

/**
 * One event both kinds of function read: a REST API proxy request (payload 1.0) and a REQUEST
 * authorizer call (which reads its headers and `methodArn`).
 */
export function probeEvent(): Record<string, unknown> {
  const authorization = `Bearer ${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
  const requestId = `pre-traffic-${randomBytes(8).toString('hex')}`;
  return {
    type: 'REQUEST',
    methodArn: 'arn:aws:execute-api:us-east-1:000000000000:pre-traffic/v1/GET/',
    resource: '/',
    path: '/',
    httpMethod: 'GET',
    headers: { authorization, 'content-type': 'application/json', 'user-agent': 'pre-traffic-hook' },
    multiValueHeaders: {
      authorization: [authorization],
      'content-type': ['application/json'],
      'user-agent': ['pre-traffic-hook'],
    },
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    requestContext: {
      requestId,
      httpMethod: 'GET',
      path: '/v1/',
      stage: 'v1',
      identity: { sourceIp: '127.0.0.1', userAgent: 'pre-traffic-hook' },
      // As when the authorizer could not reach the database: the route then authenticates by itself.
      authorizer: { principalId: 'deferred', deferred: 'pre-traffic' },
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
  let answer: {
    statusCode?: number;
    headers?: Record<string, string>;
    body?: string;
    policyDocument?: { Statement?: { Effect?: string }[] };
  };
  try {
    answer = JSON.parse(text);
  } catch {
    return { ok: false, detail: `not JSON: ${text.slice(0, 300)}` };
  }
  const effects = answer?.policyDocument?.Statement?.map((statement) => statement.Effect) ?? [];
  if (effects.length > 0 && effects.every((effect) => effect === 'Deny')) {
    return { ok: true, detail: 'authorizer denied an unknown key' };
  }
  const type = answer?.headers?.['content-type'] ?? '';
  if (
    answer?.statusCode === INVALID_KEY.status &&
    type.startsWith('application/problem+json') &&
    problemTypeOf(answer.body) === problemType(INVALID_KEY.slug)
  ) {
    return { ok: true, detail: `route answered ${INVALID_KEY.status} ${INVALID_KEY.slug} to an unknown key` };
  }
  return {
    ok: false,
    detail: `expected a ${INVALID_KEY.status} ${INVALID_KEY.slug} problem or a denial, got ${text.slice(0, 300)}`,
  };
}

/** A problem body's `type`, or undefined for anything else. */
function problemTypeOf(body: string | undefined): unknown {
  try {
    return (JSON.parse(body ?? '') as { type?: unknown })?.type;
  } catch {
    return undefined;
  }
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
