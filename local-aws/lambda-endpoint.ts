/**
 * A stand-in for the Lambda Invoke API (`POST /2015-03-31/functions/{name}/invocations`, REST-JSON),
 * enough for `@aws-sdk/client-lambda`'s InvokeCommand: synchronous and `Event` invocations of the
 * functions it is given, with Lambda's answers for an unknown function, a body that is not JSON,
 * an oversized payload and a function that throws.
 */
import { randomUUID } from 'node:crypto';
import type { AwsAnswer, AwsRequest } from './aws-http.ts';

export type LocalFunction = (event: unknown) => Promise<unknown>;

/** Lambda's synchronous request payload quota. */
const MAX_PAYLOAD_BYTES = 6 * 1024 * 1024;
const PATH = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/;

const json = (status: number, body: unknown, headers: Record<string, string> = {}): AwsAnswer => ({
  status,
  headers: { 'content-type': 'application/json', 'x-amzn-requestid': randomUUID(), ...headers },
  body: JSON.stringify(body),
});

/** Lambda's error shape: the type in `x-amzn-errortype`, the message in the body. */
const failure = (status: number, type: string, message: string) =>
  json(status, { Type: 'User', message }, { 'x-amzn-errortype': type });

export const isLambdaRequest = (request: AwsRequest) => PATH.test(request.path);

/** A name, an ARN or a partial ARN (`…:function:name[:qualifier]`) → the function's name. */
function functionNameOf(raw: string): string {
  const name = decodeURIComponent(raw);
  const arn = /(?:^|:)function:([^:]+)/.exec(name);
  return arn?.[1] ?? name;
}

export async function invoke(
  request: AwsRequest,
  functions: ReadonlyMap<string, LocalFunction>,
): Promise<AwsAnswer> {
  const [, rawName = ''] = PATH.exec(request.path) ?? [];
  const name = functionNameOf(rawName);
  const fn = functions.get(name);
  if (request.method !== 'POST') return failure(405, 'MethodNotAllowedException', 'Invoke is a POST');
  if (!fn) {
    return failure(
      404,
      'ResourceNotFoundException',
      `Function not found: arn:aws:lambda:local:000000000000:function:${name}`,
    );
  }
  if (request.body.length > MAX_PAYLOAD_BYTES) {
    return failure(
      413,
      'RequestTooLargeException',
      'Request must be smaller than 6291456 bytes for the InvokeFunction operation',
    );
  }
  let event: unknown;
  try {
    event = request.body.length ? JSON.parse(request.body.toString('utf8')) : {};
  } catch {
    return failure(400, 'InvalidRequestContentException', 'Could not parse request body into json');
  }
  const type = request.headers['x-amz-invocation-type'] ?? 'RequestResponse';
  if (type === 'DryRun') return { status: 204, headers: {}, body: '' };
  const run = fn(event);
  if (type === 'Event') {
    run.catch(() => {}); // nobody waits for an asynchronous invocation's answer
    return { status: 202, headers: {}, body: '' };
  }
  try {
    const result = await run;
    return json(200, result ?? null, { 'x-amz-executed-version': '$LATEST' });
  } catch (error) {
    const { name: errorType = 'Error', message = String(error) } = error as Error;
    return json(
      200,
      { errorType, errorMessage: message, trace: [] },
      {
        'x-amz-executed-version': '$LATEST',
        'x-amz-function-error': 'Unhandled',
      },
    );
  }
}
