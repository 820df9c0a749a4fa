/**
 * A stand-in for CloudFormation's DescribeStacks (the awsQuery protocol: a form-encoded POST, an
 * XML answer), enough for `@aws-sdk/client-cloudformation` to read a stack's outputs.
 */
import { randomUUID } from 'node:crypto';
import { type AwsAnswer, type AwsRequest, escapeXml } from './aws-http.ts';

/** Stack name → its outputs (OutputKey → OutputValue). */
export type LocalStacks = ReadonlyMap<string, Readonly<Record<string, string>>>;

const NS = 'http://cloudformation.amazonaws.com/doc/2010-05-15/';

const xml = (status: number, body: string): AwsAnswer => ({
  status,
  headers: { 'content-type': 'text/xml', 'x-amzn-requestid': randomUUID() },
  body: `<?xml version="1.0" encoding="UTF-8"?>\n${body}`,
});

function error(status: number, code: string, message: string): AwsAnswer {
  return xml(
    status,
    `<ErrorResponse xmlns="${NS}"><Error><Type>Sender</Type><Code>${code}</Code>` +
      `<Message>${escapeXml(message)}</Message></Error><RequestId>${randomUUID()}</RequestId></ErrorResponse>`,
  );
}

export const isQueryRequest = (request: AwsRequest) =>
  request.method === 'POST' &&
  request.path === '/' &&
  (request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');

export function describeStacks(request: AwsRequest, stacks: LocalStacks): AwsAnswer {
  const form = new URLSearchParams(request.body.toString('utf8'));
  if (form.get('Action') !== 'DescribeStacks') {
    return error(400, 'InvalidAction', `The action ${form.get('Action')} is not valid for this endpoint.`);
  }
  const name = form.get('StackName');
  // Without a name DescribeStacks lists every stack; the CLIs always name one.
  const chosen =
    name === null ? [...stacks] : stacks.has(name) ? [[name, stacks.get(name) ?? {}] as const] : [];
  if (name !== null && !chosen.length)
    return error(400, 'ValidationError', `Stack with id ${name} does not exist`);
  const members = chosen
    .map(([stackName, outputs]) => {
      const outputXml = Object.entries(outputs)
        .map(
          ([key, value]) =>
            `<member><OutputKey>${escapeXml(key)}</OutputKey><OutputValue>${escapeXml(value)}</OutputValue></member>`,
        )
        .join('');
      return (
        `<member><StackName>${escapeXml(stackName)}</StackName>` +
        `<StackId>arn:aws:cloudformation:local:000000000000:stack/${escapeXml(stackName)}/local</StackId>` +
        '<CreationTime>2026-01-01T00:00:00.000Z</CreationTime><StackStatus>CREATE_COMPLETE</StackStatus>' +
        `<Outputs>${outputXml}</Outputs></member>`
      );
    })
    .join('');
  return xml(
    200,
    `<DescribeStacksResponse xmlns="${NS}"><DescribeStacksResult><Stacks>${members}</Stacks></DescribeStacksResult>` +
      `<ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></DescribeStacksResponse>`,
  );
}
