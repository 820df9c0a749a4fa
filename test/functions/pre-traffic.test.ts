import {
  GetDeploymentTargetCommand,
  ListDeploymentTargetsCommand,
  PutLifecycleEventHookExecutionStatusCommand,
} from '@aws-sdk/client-codedeploy';
import type { InvokeCommand } from '@aws-sdk/client-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from '#db/client.ts';
import { build as buildCreateAgent } from '#functions/agents/create.ts';
import { build as buildListAgents } from '#functions/agents/list.ts';
import { build as buildAuthorizer } from '#functions/authorizer.ts';
import { silentLogger } from '#functions/http/log.ts';
import { build as buildHook, judge, probeEvent } from '#functions/pre-traffic.ts';
import { build as buildListSessions } from '#functions/sessions/list.ts';
import { freshDatabase } from '#test/helpers/database.ts';

type Handler = (event: never) => Promise<unknown>;

/**
 * The hook's decision over the real handlers and a real database: CodeDeploy and Lambda are
 * stand-ins that name the deployment's targets and invoke the handler a version would run.
 */
describe('the pre-traffic hook', () => {
  let handle: DatabaseHandle;
  let down: DatabaseHandle;
  const over = (database: DatabaseHandle): Record<string, Handler> => ({
    'list-agents': buildListAgents({ database, logger: silentLogger }) as Handler,
    'create-agent': buildCreateAgent({ database, logger: silentLogger }) as Handler,
    'list-sessions': buildListSessions({ database, logger: silentLogger }) as Handler,
    authorizer: buildAuthorizer({ database, logger: silentLogger }) as Handler,
  });

  beforeAll(async () => {
    handle = await freshDatabase();
    // A port nothing listens on: the new version cannot reach its database.
    down = await openDatabase({ kind: 'postgres', url: 'postgres://nobody@127.0.0.1:1/none' });
  });
  afterAll(async () => {
    await handle.close();
    await down.close();
  });

  const run = async (handlers: Record<string, Handler>, crash = false) => {
    const reported: unknown[] = [];
    const invoked: string[] = [];
    const codedeploy = {
      send: async (command: unknown) => {
        if (command instanceof ListDeploymentTargetsCommand) return { targetIds: Object.keys(handlers) };
        if (command instanceof GetDeploymentTargetCommand) {
          const name = command.input.targetId as string;
          return {
            deploymentTarget: {
              lambdaTarget: { lambdaFunctionInfo: { functionName: name, targetVersion: '7' } },
            },
          };
        }
        if (command instanceof PutLifecycleEventHookExecutionStatusCommand) {
          reported.push(command.input);
          return {};
        }
        throw new Error('unexpected command');
      },
    };
    const lambda = {
      send: async (command: InvokeCommand) => {
        const { FunctionName, Qualifier, Payload } = command.input;
        invoked.push(`${FunctionName}:${Qualifier}`);
        if (crash && FunctionName === 'list-agents') {
          return { FunctionError: 'Unhandled', Payload: new TextEncoder().encode('{"errorType":"Error"}') };
        }
        const event = JSON.parse(new TextDecoder().decode(Payload as Uint8Array));
        const answer = await (handlers[FunctionName as string] as Handler)(event as never);
        return { Payload: new TextEncoder().encode(JSON.stringify(answer)) };
      },
    };
    const result = await buildHook({ codedeploy, lambda } as never, () => {})({
      DeploymentId: 'd-1',
      LifecycleEventHookExecutionId: 'hook-1',
    });
    return { result, reported, invoked };
  };

  it('passes versions that reach the database and refuse an unknown key, and tells CodeDeploy', async () => {
    const { result, reported, invoked } = await run(over(handle));
    expect(result.status).toBe('Succeeded');
    expect(invoked.sort()).toEqual(['authorizer:7', 'create-agent:7', 'list-agents:7', 'list-sessions:7']);
    expect(reported).toEqual([
      { deploymentId: 'd-1', lifecycleEventHookExecutionId: 'hook-1', status: 'Succeeded' },
    ]);
  });

  it('fails the deployment when a version cannot reach its database', async () => {
    const { result, reported } = await run({ 'list-agents': over(down)['list-agents'] as Handler });
    expect(result.status).toBe('Failed');
    expect(reported).toEqual([
      { deploymentId: 'd-1', lifecycleEventHookExecutionId: 'hook-1', status: 'Failed' },
    ]);
    // The authorizer lets a request through marked deferred when its database is away: not a pass.
    expect((await run({ authorizer: over(down).authorizer as Handler })).result.status).toBe('Failed');
  });

  it('fails the deployment when a version crashes', async () => {
    expect((await run(over(handle), true)).result.status).toBe('Failed');
  });

  it('sends a well-formed key no workspace holds, fresh each time', () => {
    const a = probeEvent() as { headers: { authorization: string } };
    const b = probeEvent() as { headers: { authorization: string } };
    expect(a.headers.authorization).toMatch(/^Bearer vak_[A-Za-z0-9_-]{43}$/);
    expect(a.headers.authorization).not.toBe(b.headers.authorization);
    const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
    expect(
      judge({ Payload: bytes({ statusCode: 200, headers: { 'content-type': 'application/json' } }) }).ok,
    ).toBe(false);
    expect(judge({ Payload: bytes({ isAuthorized: true, context: {} }) }).ok).toBe(false);
    // A refusal, but not the one a route gives an unknown key after looking it up.
    const problemAnswer = (statusCode: number, type: string) =>
      bytes({
        statusCode,
        headers: { 'content-type': 'application/problem+json' },
        body: JSON.stringify({ type: `https://voice-agent-admin.dev/problems/${type}` }),
      });
    expect(judge({ Payload: problemAnswer(403, 'invalid-key') }).ok).toBe(true);
    expect(judge({ Payload: problemAnswer(401, 'unauthenticated') }).ok).toBe(false);
    expect(judge({ Payload: problemAnswer(403, 'insufficient-scope') }).ok).toBe(false);
  });
});
