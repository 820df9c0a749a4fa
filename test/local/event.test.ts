import { createServer } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '#functions/http/log.ts';
import type { ApiEvent, AuthorizerEvent } from '#functions/http/types.ts';
import { createListener } from '#infra/local/listener.ts';

/** The gateway in front of stand-in functions, to see exactly what it sends them. */
let seen: { event?: ApiEvent; authorizerEvent?: AuthorizerEvent; authorizerCalls: number };
let reply: (event: ApiEvent) => Promise<unknown>;
let authorize: (event: AuthorizerEvent) => Promise<unknown>;
let base: string;
let port: number;

const echo = (event: ApiEvent) => {
  seen.event = event;
  return reply(event);
};

const server = createServer(
  createListener({
    routes: [
      { method: 'GET', path: '/echo', handler: echo },
      { method: 'POST', path: '/echo', handler: echo },
    ],
    authorizer: (event) => {
      seen.authorizerEvent = event;
      seen.authorizerCalls++;
      return authorize(event);
    },
    authorizerCacheTtlSeconds: 60,
    logger: silentLogger,
  }),
);

beforeAll(async () => {
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  port = (server.address() as { port: number }).port;
  base = `http://127.0.0.1:${port}`;
});
afterAll(() => new Promise<void>((done) => server.close(() => done())).then(() => undefined));

let tokens = 0;
beforeEach(() => {
  seen = { authorizerCalls: 0 };
  reply = async () => ({ statusCode: 200, body: 'ok' });
  authorize = async () => ({ isAuthorized: true, context: { workspaceId: 'w1' } });
});
/** A fresh identity per call, so the authorizer cache never answers for another test. */
const auth = () => ({ authorization: `Bearer t${++tokens}` });

/** Raw HTTP/1.1 over a socket: repeated headers and the query string go out exactly as written. */
function rawRequest(head: string): Promise<string> {
  return new Promise((done, fail) => {
    const socket = connect(port, '127.0.0.1', () =>
      socket.end(`${head.trim().replace(/\n/g, '\r\n')}\r\n\r\n`),
    );
    let text = '';
    socket
      .on('data', (chunk) => (text += chunk))
      .on('end', () => done(text))
      .on('error', fail);
  });
}

describe('the event a function receives', () => {
  it('has the payload 2.0 shape, with headers, cookies and query as API Gateway maps them', async () => {
    await rawRequest(`GET /echo?a=1&a=2&b=x%20y&empty= HTTP/1.1
Host: api.local:${port}
Authorization: Bearer t-raw
X-Multi: one
x-multi: two
Cookie: s=1; t=2
Cookie: u=3
User-Agent: raw-test
Connection: close`);
    const event = seen.event as ApiEvent;
    expect(event).toMatchObject({
      version: '2.0',
      routeKey: 'GET /echo',
      rawPath: '/echo',
      rawQueryString: 'a=1&a=2&b=x%20y&empty=',
      cookies: ['s=1', 't=2', 'u=3'],
      queryStringParameters: { a: '1,2', b: 'x y', empty: '' },
      isBase64Encoded: false,
    });
    expect(event.body).toBeUndefined();
    expect(event.headers).toMatchObject({
      host: `api.local:${port}`,
      authorization: 'Bearer t-raw',
      'x-multi': 'one,two',
      'user-agent': 'raw-test',
      'x-forwarded-for': '127.0.0.1',
      'x-forwarded-proto': 'http',
      'x-forwarded-port': String(port),
    });
    expect(event.headers.cookie).toBeUndefined();
    expect(event.headers.connection).toBeUndefined();
    const context = event.requestContext;
    expect(context).toMatchObject({
      accountId: '000000000000',
      apiId: 'local',
      domainName: `api.local:${port}`,
      domainPrefix: 'api',
      http: {
        method: 'GET',
        path: '/echo',
        protocol: 'HTTP/1.1',
        sourceIp: '127.0.0.1',
        userAgent: 'raw-test',
      },
      routeKey: 'GET /echo',
      stage: '$default',
      authorizer: { lambda: { workspaceId: 'w1' } },
    });
    expect(context.time).toMatch(/^\d{2}\/[A-Z][a-z]{2}\/\d{4}:\d{2}:\d{2}:\d{2} \+0000$/);
    expect(Math.abs(context.timeEpoch - Date.now())).toBeLessThan(5_000);
  });

  it('omits queryStringParameters and cookies when there are none', async () => {
    await fetch(`${base}/echo`, { headers: auth() });
    expect(seen.event).not.toHaveProperty('queryStringParameters');
    expect(seen.event).not.toHaveProperty('cookies');
    expect(seen.event?.rawQueryString).toBe('');
  });

  it('decodes the path for routing, except %25', async () => {
    await fetch(`${base}/%65cho`, { headers: auth() });
    expect(seen.event?.rawPath).toBe('/echo');
    const res = await fetch(`${base}/echo%25`, { headers: auth() });
    expect(res.status).toBe(404);
  });

  it('sends a textual body as text and anything else as base64', async () => {
    const json = '{"name":"é"}';
    await fetch(`${base}/echo`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: json,
    });
    expect(seen.event).toMatchObject({ body: json, isBase64Encoded: false });
    const bytes = Buffer.from([0, 1, 2, 250, 255]);
    await fetch(`${base}/echo`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/octet-stream' },
      body: bytes,
    });
    expect(seen.event).toMatchObject({ body: bytes.toString('base64'), isBase64Encoded: true });
  });

  it('gives the authorizer a REQUEST event with the identity source and route ARN', async () => {
    const headers = auth();
    await fetch(`${base}/echo?x=1`, { headers });
    const event = seen.authorizerEvent as AuthorizerEvent;
    expect(event).toMatchObject({
      version: '2.0',
      type: 'REQUEST',
      identitySource: [headers.authorization],
      routeKey: 'GET /echo',
      rawPath: '/echo',
      rawQueryString: 'x=1',
      routeArn: expect.stringMatching(
        /^arn:aws:execute-api:[a-z0-9-]+:000000000000:local\/\$default\/GET\/echo$/,
      ),
    });
    expect(event.requestContext.requestId).toBe(seen.event?.requestContext.requestId);
  });
});
