import { describe, expect, it } from 'vitest';
import { standInGateway } from '#test/helpers/stand-in-gateway.ts';

const g = standInGateway();

describe('how a function’s answer is mapped', () => {
  it('writes status, headers, cookies and content-length; the request id matches', async () => {
    g.reply = async (event) => ({
      statusCode: 201,
      headers: { 'X-Thing': 'a', 'x-request-id': event.requestContext.requestId },
      cookies: ['a=1; Path=/', 'b=2'],
      body: 'héllo',
    });
    const res = await fetch(`${g.base}/echo`, { headers: g.auth() });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-thing')).toBe('a');
    expect(res.headers.getSetCookie()).toEqual(['a=1; Path=/', 'b=2']);
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength('héllo')));
    expect(res.headers.get('apigw-requestid')).toBe(res.headers.get('x-request-id'));
    expect(await res.text()).toBe('héllo');
  });

  it('decodes a base64 body', async () => {
    const bytes = Buffer.from([0, 159, 146, 150, 255]);
    g.reply = async () => ({ statusCode: 200, body: bytes.toString('base64'), isBase64Encoded: true });
    const res = await fetch(`${g.base}/echo`, { headers: g.auth() });
    expect(Buffer.from(await res.arrayBuffer())).toEqual(bytes);
  });

  it.each([
    ['a string', 'hello', 'hello'],
    ['an object without statusCode', { message: 'hi' }, '{"message":"hi"}'],
    ['an array', [1, 2], '[1,2]'],
    ['undefined', undefined, 'null'],
  ])('infers 200 JSON from %s', async (_, value, body) => {
    g.reply = async () => value;
    const res = await fetch(`${g.base}/echo`, { headers: g.auth() });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.text()).toBe(body);
  });

  it.each([
    ['a function that throws', () => Promise.reject(new Error('boom'))],
    ['a malformed statusCode', async () => ({ statusCode: '200', body: 'x' })],
    ['a non-string body', async () => ({ statusCode: 200, body: { a: 1 } })],
    ['a header that cannot be sent', async () => ({ statusCode: 200, headers: { 'bad name': 'x' } })],
  ])('answers 500 for %s', async (_, handler) => {
    g.reply = handler as typeof g.reply;
    const res = await fetch(`${g.base}/echo`, { headers: g.auth() });
    expect(res.status).toBe(500);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.text()).toBe('{"message":"Internal Server Error"}');
  });
});

describe('the authorizer', () => {
  it.each([
    ['throws', () => Promise.reject(new Error('down'))],
    ['answers isAuthorized as a string', async () => ({ isAuthorized: 'true' })],
    ['answers a non-object context', async () => ({ isAuthorized: true, context: 'x' })],
  ])('500 when it %s, and that is not cached', async (_, answer) => {
    g.authorize = answer as typeof g.authorize;
    const headers = g.auth();
    const res = await fetch(`${g.base}/echo`, { headers });
    expect(res.status).toBe(500);
    expect(await res.text()).toBe('{"message":"Internal Server Error"}');
    await fetch(`${g.base}/echo`, { headers });
    expect(g.seen.authorizerCalls).toBe(2);
    expect(g.seen.event).toBeUndefined();
  });

  it('caches a denial per identity, as it caches an allow', async () => {
    g.authorize = async (event) => ({ isAuthorized: event.identitySource[0] === 'Bearer yes' });
    for (const token of ['no', 'no', 'yes', 'yes']) {
      const res = await fetch(`${g.base}/echo`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(token === 'yes' ? 200 : 403);
    }
    expect(g.seen.authorizerCalls).toBe(2);
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
    expect(await res.text()).toBe('{"message":"Request Entity Too Large"}');
    expect(sent).toBeLessThan(64);
    expect(g.seen.authorizerCalls).toBe(0);
  });

  it('takes exactly 10 MiB', async () => {
    g.reply = async (event) => ({ statusCode: 200, body: String(event.body?.length) });
    const res = await fetch(`${g.base}/echo`, {
      method: 'POST',
      headers: { ...g.auth(), 'content-type': 'text/plain' },
      body: Buffer.alloc(10 * 1024 * 1024, 0x61),
    });
    expect(await res.text()).toBe(String(10 * 1024 * 1024));
  });
});
