/**
 * Local stand-ins for the AWS APIs the CLIs' `--stage` path, the admin function and the migration
 * function call, on one HTTP server: point AWS_ENDPOINT_URL_LAMBDA, AWS_ENDPOINT_URL_CLOUDFORMATION,
 * AWS_ENDPOINT_URL_API_GATEWAY and AWS_ENDPOINT_URL_RDS (or AWS_ENDPOINT_URL) at it and the real SDK talks to it. Requests must be SigV4-signed (any
 * credentials): an unsigned call is refused as AWS refuses it, so a client that lost its credentials
 * fails here too.
 */
import { createServer, type IncomingMessage } from 'node:http';
import { listen } from '#infra/local/listen.ts';
import { answerApiGateway, isApiGatewayRequest, type LocalUsagePlans } from './api-gateway-endpoint.ts';
import type { AwsAnswer, AwsRequest } from './aws-http.ts';
import { describeStacks, isQueryRequest, type LocalStacks } from './cloudformation-endpoint.ts';
import { invoke, isLambdaRequest, type LocalFunction } from './lambda-endpoint.ts';
import { answerRds, isRdsRequest, type LocalClusterSnapshots } from './rds-endpoint.ts';

export interface AwsEndpointOptions {
  /** Function name → the function, e.g. the admin function's `build(deps)`. */
  functions: ReadonlyMap<string, LocalFunction>;
  stacks: LocalStacks;
  /** API Gateway's API keys and usage plans (AWS_ENDPOINT_URL_API_GATEWAY); none when absent. */
  usagePlans?: LocalUsagePlans;
  /** RDS's cluster snapshots (AWS_ENDPOINT_URL_RDS); none when absent. */
  clusterSnapshots?: LocalClusterSnapshots;
  port?: number;
  host?: string;
}

export interface AwsEndpoint {
  url: string;
  close(): Promise<void>;
}

const notSigned = (): AwsAnswer => ({
  status: 403,
  headers: { 'content-type': 'application/json', 'x-amzn-errortype': 'MissingAuthenticationTokenException' },
  body: JSON.stringify({ message: 'Missing Authentication Token' }),
});

async function read(req: IncomingMessage): Promise<AwsRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = Object.fromEntries(
    Object.entries(req.headers).map(([k, value]) => [k, Array.isArray(value) ? value.join(', ') : value]),
  );
  return {
    method: req.method ?? 'GET',
    path: (req.url ?? '/').split('?')[0] ?? '/',
    query: (req.url ?? '').split('?')[1] ?? '',
    headers,
    body: Buffer.concat(chunks),
  };
}

export function answerAws(
  request: AwsRequest,
  options: Pick<AwsEndpointOptions, 'functions' | 'stacks' | 'usagePlans' | 'clusterSnapshots'>,
) {
  if (!request.headers.authorization?.startsWith('AWS4-HMAC-SHA256 ')) return Promise.resolve(notSigned());
  if (isLambdaRequest(request)) return invoke(request, options.functions);
  // RDS speaks the same query protocol as CloudFormation: told apart by the service it was signed for.
  if (options.clusterSnapshots && isRdsRequest(request)) return answerRds(request, options.clusterSnapshots);
  if (isQueryRequest(request)) return Promise.resolve(describeStacks(request, options.stacks));
  if (options.usagePlans && isApiGatewayRequest(request)) {
    return Promise.resolve(answerApiGateway(request, options.usagePlans));
  }
  return Promise.resolve<AwsAnswer>({
    status: 404,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message: `no local stand-in for ${request.method} ${request.path}` }),
  });
}

export async function startAwsEndpoint(options: AwsEndpointOptions): Promise<AwsEndpoint> {
  const server = createServer((req, res) => {
    read(req)
      .then((request) => answerAws(request, options))
      .catch((error: unknown) => ({
        status: 500,
        headers: { 'content-type': 'application/json', 'x-amzn-errortype': 'ServiceException' },
        body: JSON.stringify({ message: (error as Error).message }),
      }))
      .then((answer) => {
        res.writeHead(answer.status, { ...answer.headers, 'content-length': Buffer.byteLength(answer.body) });
        res.end(answer.body);
      });
  });
  const url = await listen(server, options.port, options.host);
  return {
    url,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}
