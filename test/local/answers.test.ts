import { describe, expect, it } from 'vitest';
import { allow, deny, standInGateway } from '#test/helpers/stand-in-gateway.ts';

const g = standInGateway();

describe('how a function’s answer is mapped', () => {
  it('writes status, headers, multi-value headers and content-length; the request id matches', async () => {
    g.reply = async (event) => ({
      statusCode: 201,
      headers: { 'X-Thing': 'a', 'x-request-id': event.requestContext.requestId },
      multiValueHeaders: { 'Set-Cookie': ['a=1; Path=/', 'b=2'] },
      body: 'héllo',
    });
    const res = await fetch(`${g.base}/echo`, { headers: g.auth() });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-thing')).toBe('a');
    expect(res.headers.getSetCookie()).toEqual(['a=1; Path=/', 'b=2']);
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength('héllo')));
    expect(res.headers.get('x-amzn-requestid')).toBe(res.headers.get('x-request-id'));
    expect(await res.text()).toBe('héllo');
  });

  it('decodes a base64 body', async () => {
    const bytes = Buffer.from([0, 159, 146, 150, 255]);
    g.reply = async () => ({ statusCode: 200, body: bytes.toString('base64'), isBase64Encoded: true });
    const res = await fetch(`${g.base}/echo`, { headers: g.auth() });
    expect(Buffer.from(await res.arrayBuffer())).toEqual(bytes);
  });

  it.each([
    ['a function that throws', () => Promise.reject(new Error('boom'))],
    ['a string', async () => 'hello'],
    ['an object without statusCode', async () => ({ message: 'hi' })],
    ['undefined', async () => undefined],
    ['a malformed statusCode', async () => ({ statusCode: '2x', body: 'x' })],
    ['a non-string body', async () => ({ statusCode: 200, body: { a: 1 } })],
    ['a header that cannot be sent', async () => ({ statusCode: 200, headers: { 'bad name': 'x' } })],
  ])('answers the 5xx problem for %s (a REST API’s 502, its status kept)', async (_, handler) => {
    g.reply = handler as typeof g.reply;
    const res = await fetch(`${g.base}/echo`, { headers: g.auth() });
    expect(res.status).toBe(502);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    const requestId = res.headers.get('x-request-id');
    expect(await res.text()).toBe(
      // The default keeps API Gateway's status, so its body cannot state one.
      `{"type":"https://voice-agent-admin.dev/problems/gateway-error","title":"Gateway Error","detail":"Internal server error","requestId":"${requestId}"}`,
    );
  });
});

describe('the authorizer', () => {
  it.each([
    ['throws', () => Promise.reject(new Error('down'))],
    ['answers a simple response', async () => ({ isAuthorized: true })],
    ['answers a non-object context', async () => ({ ...allow(), context: 'x' })],
    ['answers a context holding an object', async () => ({ ...allow(), context: { a: { b: 1 } } })],
  ])('500 when it %s, and that is not cached', async (_, answer) => {
    g.authorize = answer as typeof g.authorize;
    const headers = g.auth();
    const res = await fetch(`${g.base}/echo`, { headers });
    expect(res.status).toBe(500);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(JSON.parse(await res.text())).toMatchObject({
      type: 'https://voice-agent-admin.dev/problems/gateway-error',
      detail: 'Internal server error',
    });
    await fetch(`${g.base}/echo`, { headers });
    expect(g.seen.authorizerCalls).toBe(2);
    expect(g.seen.event).toBeUndefined();
  });

  it('caches a denial per identity, as it caches an allow', async () => {
    g.authorize = async (event) => (event.headers?.authorization === 'Bearer yes' ? allow() : deny());
    for (const token of ['no', 'no', 'yes', 'yes']) {
      const res = await fetch(`${g.base}/echo`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(token === 'yes' ? 200 : 403);
    }
    expect(g.seen.authorizerCalls).toBe(2);
  });

  it('evaluates a cached policy per method: one naming only GET refuses POST', async () => {
    g.authorize = async (event) => ({
      ...allow(),
      policyDocument: {
        Version: '2012-10-17',
        Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: event.methodArn }],
      },
    });
    const headers = g.auth();
    expect((await fetch(`${g.base}/echo`, { headers })).status).toBe(200);
    expect((await fetch(`${g.base}/echo`, { method: 'POST', headers })).status).toBe(403);
    expect(g.seen.authorizerCalls).toBe(1);
  });

  it('401 when it fails with exactly "Unauthorized", as REST authorizers may', async () => {
    g.authorize = () => Promise.reject(new Error('Unauthorized'));
    expect((await fetch(`${g.base}/echo`, { headers: g.auth() })).status).toBe(401);
  });

  it('is not called without an Authorization header', async () => {
    expect((await fetch(`${g.base}/echo`)).status).toBe(401);
    expect(g.seen.authorizerCalls).toBe(0);
  });
});

describe('the 10 MB payload cap', () => {
  it('413 for a chunked upload that passes the cap, reading no further', async () => {
    const chunk = Buffer.alloc(1024 * 1024, 0x61);
    let sent = 0;
    const body = new ReadableStream({
      pull: (controller) => (sent++ < 64 ? controller.enqueue(chunk) : controller.close()),
    });
    const res = await fetch(`${g.base}/echo`, {
      method: 'POST',
      headers: { ...g.auth(), 'content-type': 'text/plain' },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(JSON.parse(await res.text())).toMatchObject({ status: 413, title: 'Content Too Large' });
    expect(sent).toBeLessThan(64);
    // Authorized first (from the headers), the body read only then, and cut at the cap.
    expect(g.seen.authorizerCalls).toBe(1);
    expect(g.seen.event).toBeUndefined();
  });

  it('takes exactly 10 MiB', async () => {
    g.reply = async (event) => ({
      statusCode: 200,
      body: String(Buffer.from(event.body ?? '', 'base64').length),
    });
    const res = await fetch(`${g.base}/echo`, {
      method: 'POST',
      headers: { ...g.auth(), 'content-type': 'text/plain' },
      body: Buffer.alloc(10 * 1024 * 1024, 0x61),
    });
    expect(await res.text()).toBe(String(10 * 1024 * 1024));
  });
});
