import { createServer } from 'node:http';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { silentLogger } from '#functions/http/log.ts';
import type { ApiEvent, AuthorizerEvent } from '#functions/http/types.ts';
import { createListener } from '#infra/local/listener.ts';

/** A REST authorizer's answer: `effect` on every method of the API, with `context`. */
export const allow = (context: Record<string, unknown> = {}, effect: 'Allow' | 'Deny' = 'Allow') => ({
  principalId: 'p1',
  policyDocument: {
    Version: '2012-10-17',
    Statement: [
      { Action: 'execute-api:Invoke', Effect: effect, Resource: 'arn:aws:execute-api:*:*:local/*' },
    ],
  },
  context,
});
export const deny = () => allow({}, 'Deny');

export interface StandInGateway {
  /** What the gateway sent the stand-in functions during the current test. */
  seen: { event?: ApiEvent; authorizerEvent?: AuthorizerEvent; authorizerCalls: number };
  /** What the stand-in route function answers (reset to a plain 200 before each test). */
  reply: (event: ApiEvent) => Promise<unknown>;
  /** What the stand-in authorizer answers (reset to "allowed" before each test). */
  authorize: (event: AuthorizerEvent) => Promise<unknown>;
  base: string;
  port: number;
  /** A fresh identity per call, so the authorizer cache never answers for another test. */
  auth(): { authorization: string };
}

/**
 * The local gateway in front of stand-in functions on GET and POST /echo and GET /echo/{id}, to see exactly what it
 * sends them and how it maps what they answer. Registers its own vitest hooks; call at module level.
 */
export function standInGateway(): StandInGateway {
  let tokens = 0;
  const g: StandInGateway = {
    seen: { authorizerCalls: 0 },
    reply: async () => ({ statusCode: 200, body: 'ok' }),
    authorize: async () => allow({ workspaceId: 'w1' }),
    base: '',
    port: 0,
    auth: () => ({ authorization: `Bearer t${++tokens}` }),
  };
  const echo = (event: ApiEvent) => {
    g.seen.event = event;
    return g.reply(event);
  };
  const server = createServer(
    createListener({
      routes: [
        { method: 'GET', path: '/echo', handler: echo },
        { method: 'POST', path: '/echo', handler: echo },
        { method: 'GET', path: '/echo/{id}', handler: echo },
      ],
      authorizer: (event) => {
        g.seen.authorizerEvent = event;
        g.seen.authorizerCalls++;
        return g.authorize(event);
      },
      authorizerCacheTtlSeconds: 60,
      logger: silentLogger,
    }),
  );
  beforeAll(async () => {
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    g.port = (server.address() as { port: number }).port;
    g.base = `http://127.0.0.1:${g.port}`;
  });
  afterAll(() => new Promise<void>((done) => server.close(() => done())));
  beforeEach(() => {
    g.seen = { authorizerCalls: 0 };
    g.reply = async () => ({ statusCode: 200, body: 'ok' });
    g.authorize = async () => allow({ workspaceId: 'w1' });
  });
  return g;
}
