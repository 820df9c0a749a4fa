import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { ApiEvent, AuthorizerEvent } from '#functions/http/types.ts';
import { standInGateway } from '#test/helpers/stand-in-gateway.ts';

const g = standInGateway();

/** Raw HTTP/1.1 over a socket: repeated headers and the query string go out exactly as written. */
function rawRequest(head: string): Promise<string> {
  return new Promise((done, fail) => {
    const socket = connect(g.port, '127.0.0.1', () =>
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
Host: api.local:${g.port}
Authorization: Bearer t-raw
X-Multi: one
x-multi: two
Cookie: s=1; t=2
Cookie: u=3
User-Agent: raw-test
Connection: close`);
    const event = g.seen.event as ApiEvent;
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
      host: `api.local:${g.port}`,
      authorization: 'Bearer t-raw',
      'x-multi': 'one,two',
      'user-agent': 'raw-test',
      'x-forwarded-for': '127.0.0.1',
      'x-forwarded-proto': 'http',
      'x-forwarded-port': String(g.port),
    });
    expect(event.headers.cookie).toBeUndefined();
    expect(event.headers.connection).toBeUndefined();
    const context = event.requestContext;
    expect(context).toMatchObject({
      accountId: '000000000000',
      apiId: 'local',
      domainName: `api.local:${g.port}`,
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
    await fetch(`${g.base}/echo`, { headers: g.auth() });
    expect(g.seen.event).not.toHaveProperty('queryStringParameters');
    expect(g.seen.event).not.toHaveProperty('cookies');
    expect(g.seen.event?.rawQueryString).toBe('');
  });

  it('decodes the path for routing, except %25', async () => {
    await fetch(`${g.base}/%65cho`, { headers: g.auth() });
    expect(g.seen.event?.rawPath).toBe('/echo');
    const res = await fetch(`${g.base}/echo%25`, { headers: g.auth() });
    expect(res.status).toBe(404);
  });

  it('sends a textual body as text and anything else as base64', async () => {
    const json = '{"name":"é"}';
    await fetch(`${g.base}/echo`, {
      method: 'POST',
      headers: { ...g.auth(), 'content-type': 'application/json' },
      body: json,
    });
    expect(g.seen.event).toMatchObject({ body: json, isBase64Encoded: false });
    const bytes = Buffer.from([0, 1, 2, 250, 255]);
    await fetch(`${g.base}/echo`, {
      method: 'POST',
      headers: { ...g.auth(), 'content-type': 'application/octet-stream' },
      body: bytes,
    });
    expect(g.seen.event).toMatchObject({ body: bytes.toString('base64'), isBase64Encoded: true });
  });

  it('gives the authorizer a REQUEST event with the identity source and route ARN', async () => {
    const headers = g.auth();
    await fetch(`${g.base}/echo?x=1`, { headers });
    const event = g.seen.authorizerEvent as AuthorizerEvent;
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
    expect(event.requestContext.requestId).toBe(g.seen.event?.requestContext.requestId);
  });
});
