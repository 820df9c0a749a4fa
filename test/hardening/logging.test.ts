import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from '#db/client.ts';
import { generateToken } from '#db/queries/api-keys.ts';
import { createLogger } from '#functions/http/log.ts';
import type { ApiEvent } from '#functions/http/types.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { apiEvent } from '#test/helpers/events.ts';
import { authorizerContext } from '#test/helpers/policy.ts';
import { createTenant, type Tenant } from '#test/helpers/tenants.ts';
import { buildApp, fuzzSeed, runs } from './support/app.ts';
import { throughAuthorizer } from './support/gateway-flow.ts';

/** The secret part of a token: what must never be written, with or without its prefix. */
const secretOf = (token: string) => token.slice('vak_'.length);

/** A structure of any shape that hides `secret` somewhere: in a value, under a telling key, in an Error. */
const carrying = (token: string) => {
  const placed = fc.constantFrom(
    token,
    `Bearer ${token}`,
    `bearer ${token}`,
    `BEARER\t${token}`,
    `Authorization: Bearer ${token}`,
    `x${token}`,
    `_${token}`,
    `token=${token}&x=1`,
    `Bearer%20${token}`,
    `["${token}"]`,
    `${token}.`,
  );
  const leaf = fc.oneof(placed, fc.string(), fc.integer(), fc.constant(null));
  const key = fc.constantFrom(
    'authorization',
    'Authorization',
    'token',
    'headers',
    'message',
    'detail',
    'x',
    'query',
  );
  const { tree } = fc.letrec((tie) => ({
    tree: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaf,
      fc.array(tie('tree'), { maxLength: 3 }),
      fc.dictionary(key, tie('tree'), { maxKeys: 3 }),
      fc.tuple(placed, tie('tree')).map(([message, cause]) => Object.assign(new Error(message), { cause })),
    ),
  }));
  // Somewhere at some depth, wrapped in as many objects as the generator likes.
  return fc.tuple(tree, placed, fc.nat({ max: 12 }), key).map(([rest, secret, depth, k]) => {
    let value: unknown = { [k]: secret, rest };
    for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { nested: value };
    return value;
  });
};

describe('logs never carry a credential', () => {
  it('redacts a token wherever it sits in the logged fields, at any depth and in any form', () => {
    const token = generateToken();
    const lines: string[] = [];
    const log = createLogger((line) => lines.push(line), 'debug');
    fc.assert(
      fc.property(
        carrying(token),
        fc.constantFrom('debug', 'info', 'warn', 'error') as fc.Arbitrary<'info'>,
        (fields, level) => {
          lines.length = 0;
          expect(() => log(level, 'event', { fields })).not.toThrow();
          expect(lines).toHaveLength(1);
          expect(lines[0]).not.toContain(secretOf(token));
        },
      ),
      { numRuns: runs(500), seed: fuzzSeed },
    );
  });

  it('writes a line even for fields that cannot be serialised (cycles, BigInt), without throwing', () => {
    const lines: string[] = [];
    const log = createLogger((line) => lines.push(line));
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = cycle;
    expect(() => log('error', 'cyclic', { cycle, big: 10n })).not.toThrow();
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] as string)).toMatchObject({ level: 'error', message: 'cyclic' });
  });

  describe('what the handlers and the authorizer log', () => {
    let handle: DatabaseHandle;
    let down: DatabaseHandle;
    let tenant: Tenant;
    const lines: string[] = [];

    beforeAll(async () => {
      handle = await freshDatabase();
      tenant = await createTenant(handle.db);
      // Connection refused: every statement fails, so the warn and error paths log too.
      down = await openDatabase({ kind: 'postgres', url: 'postgres://nobody@127.0.0.1:1/none' });
    });
    afterAll(async () => {
      await down?.close();
      await handle?.close();
    });

    it('never logs the Authorization header or a token, on any path (success, refusal, outage, deferred)', async () => {
      const logger = createLogger((line) => lines.push(line), 'debug');
      const up = buildApp({ database: handle, logger });
      const outage = buildApp({ database: down, logger });
      const revoked = generateToken();
      const events: [string, ApiEvent][] = [
        [
          'create-agent',
          apiEvent({ method: 'POST', path: '/agents', body: { name: 'Logged' }, caller: tenant }),
        ],
        ['create-agent', apiEvent({ method: 'POST', path: '/agents', rawBody: '{"name":', caller: tenant })],
        [
          'create-agent',
          apiEvent({
            method: 'POST',
            path: '/agents',
            body: { name: tenant.token },
            caller: tenant,
            headers: { 'idempotency-key': tenant.token },
          }),
        ],
        ['list-agents', apiEvent({ path: '/agents', query: `token=${tenant.token}`, caller: tenant })],
        [
          'list-sessions',
          apiEvent({ path: '/sessions', caller: tenant, headers: { authorization: `Bearer ${revoked}` } }),
        ],
      ];
      for (const app of [up, outage]) {
        for (const [route, event] of events) {
          await throughAuthorizer(app, route as 'create-agent', event);
          const deferred = structuredClone(event);
          deferred.requestContext.authorizer = authorizerContext({ deferred: 'database-unavailable' });
          await (route === 'create-agent'
            ? app.createAgent
            : route === 'list-agents'
              ? app.listAgents
              : app.listSessions)(deferred);
        }
      }
      expect(lines.length).toBeGreaterThan(20);
      expect(lines.some((l) => l.includes('"level":"warn"'))).toBe(true);
      const all = lines.join('\n');
      for (const token of [tenant.token, revoked]) expect(all).not.toContain(secretOf(token));
      expect(all).not.toMatch(/Bearer\s+(?!\[redacted\])\S/i);
    });
  });
});
