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

/** The event the last request gave the function (read after the request, not narrowed before it). */
const seenEvent = () => {
  if (!g.seen.event) throw new Error('the function was not called');
  return g.seen.event;
};

describe('the event a function receives', () => {
  it('has the payload 1.0 shape, with headers and query as a REST API maps them', async () => {
    await rawRequest(`GET /echo?a=1&a=2&b=x%20y&empty= HTTP/1.1
Host: evil.example:${g.port}
Authorization: Bearer t-raw
X-Multi: one
x-multi: two
Cookie: s=1; t=2
User-Agent: raw-test
Connection: close`);
    const event = g.seen.event as ApiEvent;
    expect(event).toMatchObject({
      resource: '/echo',
      path: '/echo',
      httpMethod: 'GET',
      queryStringParameters: { a: '2', b: 'x y', empty: '' },
      multiValueQueryStringParameters: { a: ['1', '2'], b: ['x y'], empty: [''] },
      pathParameters: null,
      stageVariables: null,
      body: null,
      isBase64Encoded: false,
    });
    // Names as sent; a repeated header's last value, and all of them in multiValueHeaders. Host is
    // the API's own domain, never the client's.
    expect(event.headers).toMatchObject({
      Host: `localhost:${g.port}`,
      Authorization: 'Bearer t-raw',
      'X-Multi': 'two',
      Cookie: 's=1; t=2',
      'User-Agent': 'raw-test',
      'X-Forwarded-For': '127.0.0.1',
      'X-Forwarded-Proto': 'http',
      'X-Forwarded-Port': String(g.port),
    });
    expect(event.multiValueHeaders['X-Multi']).toEqual(['one', 'two']);
    expect(event.headers.Connection).toBeUndefined();
    const context = event.requestContext;
    expect(context).toMatchObject({
      accountId: '000000000000',
      apiId: 'local',
      domainName: `localhost:${g.port}`,
      domainPrefix: 'localhost',
      httpMethod: 'GET',
      path: '/echo',
      protocol: 'HTTP/1.1',
      resourcePath: '/echo',
      identity: { sourceIp: '127.0.0.1', userAgent: 'raw-test' },
      stage: 'v1',
      authorizer: { workspaceId: 'w1', principalId: 'p1' },
    });
    expect(context.requestTime).toMatch(/^\d{2}\/[A-Z][a-z]{2}\/\d{4}:\d{2}:\d{2}:\d{2} \+0000$/);
    expect(Math.abs((context.requestTimeEpoch ?? 0) - Date.now())).toBeLessThan(5_000);
  });

  it('keeps a header or parameter named __proto__ as an own key, and replaces a sent Host or X-Forwarded-* in any case', async () => {
    g.seen.event = undefined;
    await rawRequest(`GET /echo?__proto__=q HTTP/1.1
Host: localhost
Authorization: Bearer t-raw
__proto__: h
x-forwarded-proto: gopher
X-FORWARDED-FOR: 10.0.0.1
Connection: close`);
    const event = seenEvent();
    expect(Object.getPrototypeOf(event.headers)).toBe(Object.prototype);
    expect(Object.hasOwn(event.headers, '__proto__')).toBe(true);
    expect(Object.getOwnPropertyDescriptor(event.headers, '__proto__')?.value).toBe('h');
    expect(Object.getOwnPropertyDescriptor(event.multiValueHeaders, '__proto__')?.value).toEqual(['h']);
    expect(Object.getOwnPropertyDescriptor(event.queryStringParameters, '__proto__')?.value).toBe('q');
    expect(Object.keys(event.headers).filter((name) => /^x-forwarded-/i.test(name))).toEqual([
      'X-Forwarded-For',
      'X-Forwarded-Port',
      'X-Forwarded-Proto',
    ]);
    expect(event.headers['X-Forwarded-For']).toBe('10.0.0.1, 127.0.0.1');
    expect(event.headers['X-Forwarded-Proto']).toBe('http');
  });

  it('sends null query parameters when there are none', async () => {
    await fetch(`${g.base}/echo`, { headers: g.auth() });
    expect(g.seen.event).toMatchObject({
      queryStringParameters: null,
      multiValueQueryStringParameters: null,
    });
  });

  it('decodes the path for routing, except %25', async () => {
    await fetch(`${g.base}/%65cho`, { headers: g.auth() });
    expect(g.seen.event?.path).toBe('/echo');
    const res = await fetch(`${g.base}/echo%25`, { headers: g.auth() });
    expect(res.status).toBe(404);
  });

  it('sends every body as base64 (binary media type */*), bytes as sent', async () => {
    const json = '{"name":"é"}';
    await fetch(`${g.base}/echo`, {
      method: 'POST',
      headers: { ...g.auth(), 'content-type': 'application/json' },
      body: json,
    });
    expect(g.seen.event).toMatchObject({ body: Buffer.from(json).toString('base64'), isBase64Encoded: true });
    const bytes = Buffer.from([0, 1, 2, 250, 255]);
    await fetch(`${g.base}/echo`, {
      method: 'POST',
      headers: { ...g.auth(), 'content-type': 'application/octet-stream' },
      body: bytes,
    });
    expect(g.seen.event).toMatchObject({ body: bytes.toString('base64'), isBase64Encoded: true });
  });

  it('names a templated route its resource and decoded parameters; the method ARN has the concrete path', async () => {
    await fetch(`${g.base}/echo/a%20b?x=1`, { headers: g.auth() });
    const event = g.seen.event as ApiEvent;
    expect(event).toMatchObject({
      resource: '/echo/{id}',
      path: '/echo/a b',
      pathParameters: { id: 'a b' },
      requestContext: { resourcePath: '/echo/{id}', path: '/echo/a b' },
    });
    expect(g.seen.authorizerEvent).toMatchObject({
      resource: '/echo/{id}',
      pathParameters: { id: 'a b' },
      methodArn: expect.stringMatching(/:local\/v1\/GET\/echo\/a b$/),
    });
  });

  it('gives the authorizer a REQUEST event with the headers and the method ARN', async () => {
    const headers = g.auth();
    await fetch(`${g.base}/echo?x=1`, { headers });
    const event = g.seen.authorizerEvent as AuthorizerEvent;
    expect(event).toMatchObject({
      type: 'REQUEST',
      resource: '/echo',
      path: '/echo',
      httpMethod: 'GET',
      headers: { authorization: headers.authorization },
      queryStringParameters: { x: '1' },
      methodArn: expect.stringMatching(/^arn:aws:execute-api:[a-z0-9-]+:000000000000:local\/v1\/GET\/echo$/),
    });
    expect(event.requestContext.requestId).toBe(g.seen.event?.requestContext.requestId);
  });
});
