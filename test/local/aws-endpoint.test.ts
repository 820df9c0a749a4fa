import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AwsEndpoint, startAwsEndpoint } from '#local-aws/aws-endpoint.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

/** The stand-ins as the real SDK clients see them: the same calls the CLIs make, and their errors. */
describe('the local AWS stand-ins', () => {
  let endpoint: AwsEndpoint;
  let lambda: LambdaClient;
  let cloudformation: CloudFormationClient;
  const events: unknown[] = [];
  const settings = () => ({
    endpoint: endpoint.url,
    region: 'eu-west-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const encode = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
  const decode = (bytes?: Uint8Array) => JSON.parse(new TextDecoder().decode(bytes));

  beforeAll(async () => {
    endpoint = await startAwsEndpoint({
      functions: new Map([
        [
          'Echo',
          async (event: unknown) => {
            events.push(event);
            return { echoed: event };
          },
        ],
        [
          'Broken',
          async () => {
            throw new TypeError('no such thing');
          },
        ],
      ]),
      stacks: new Map([['VoiceAgentAdmin-pr-1', { ApiUrl: 'http://127.0.0.1:1/', Note: '<a & "b">' }]]),
    });
    lambda = new LambdaClient(settings());
    cloudformation = new CloudFormationClient(settings());
  });
  afterAll(async () => {
    lambda?.destroy();
    cloudformation?.destroy();
    await endpoint?.close();
  });

  it('invokes a function by name or ARN and answers its result', async () => {
    for (const name of ['Echo', 'arn:aws:lambda:eu-west-1:123456789012:function:Echo']) {
      const response = await lambda.send(
        new InvokeCommand({ FunctionName: name, Payload: encode({ a: 1 }) }),
      );
      expect(response.StatusCode).toBe(200);
      expect(response.FunctionError).toBeUndefined();
      expect(decode(response.Payload)).toEqual({ echoed: { a: 1 } });
    }
  });

  it('answers an asynchronous invocation with 202 and runs it', async () => {
    events.length = 0;
    const response = await lambda.send(
      new InvokeCommand({ FunctionName: 'Echo', InvocationType: 'Event', Payload: encode({ b: 2 }) }),
    );
    expect(response.StatusCode).toBe(202);
    await expect.poll(() => events).toEqual([{ b: 2 }]);
  });

  it('reports a thrown error as Lambda does: FunctionError Unhandled with the error in the payload', async () => {
    const response = await lambda.send(new InvokeCommand({ FunctionName: 'Broken', Payload: encode({}) }));
    expect(response.FunctionError).toBe('Unhandled');
    expect(decode(response.Payload)).toMatchObject({ errorType: 'TypeError', errorMessage: 'no such thing' });
  });

  it('refuses an unknown function and a payload that is not JSON with the SDK errors', async () => {
    await expect(lambda.send(new InvokeCommand({ FunctionName: 'Nope' }))).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
      $metadata: { httpStatusCode: 404 },
    });
    await expect(
      lambda.send(
        new InvokeCommand({ FunctionName: 'Echo', Payload: new TextEncoder().encode('{not json') }),
      ),
    ).rejects.toMatchObject({ name: 'InvalidRequestContentException' });
  });

  it('describes a stack with its outputs, escaped values intact', async () => {
    const { Stacks } = await cloudformation.send(
      new DescribeStacksCommand({ StackName: 'VoiceAgentAdmin-pr-1' }),
    );
    expect(Stacks?.[0]).toMatchObject({ StackName: 'VoiceAgentAdmin-pr-1', StackStatus: 'CREATE_COMPLETE' });
    expect(Stacks?.[0]?.Outputs).toEqual([
      { OutputKey: 'ApiUrl', OutputValue: 'http://127.0.0.1:1/' },
      { OutputKey: 'Note', OutputValue: '<a & "b">' },
    ]);
  });

  it('answers a missing stack with the ValidationError CloudFormation gives', async () => {
    await expect(
      cloudformation.send(new DescribeStacksCommand({ StackName: 'VoiceAgentAdmin-x' })),
    ).rejects.toMatchObject({
      name: 'ValidationError',
      message: 'Stack with id VoiceAgentAdmin-x does not exist',
    });
  });

  it('refuses a request that is not SigV4-signed', async () => {
    const response = await fetch(`${endpoint.url}/2015-03-31/functions/Echo/invocations`, {
      method: 'POST',
      body: '{}',
    });
    expect(response.status).toBe(403);
    expect(events).not.toContainEqual({});
  });
});
