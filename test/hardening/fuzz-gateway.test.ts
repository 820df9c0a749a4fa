import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '#contract/routes.ts';
import type { DatabaseHandle } from '#db/client.ts';
import { generateToken } from '#db/queries/api-keys.ts';
import { silentLogger } from '#functions/http/log.ts';
import { type Gateway, startGateway } from '#infra/local/gateway.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { gatewayBodyFor } from '#test/helpers/gateway-answers.ts';
import {
  buildWorld,
  httpRequestOf,
  type RouteKey,
  type RouteRequest,
  routeKeys,
  routeRequests,
  type World,
} from '#test/helpers/route-requests.ts';
import { expectNothingWritten, tableStates } from '#test/helpers/table-states.ts';
import { createTenant, type Tenant } from '#test/helpers/tenants.ts';
import { checkAnswer, fuzzSeed, type RouteName, rowCounts, runs, Tally } from './support/app.ts';
import { anyJson, anyText, applyMutation, mutation, validCreateBody } from './support/arbitraries.ts';
import { type HttpAnswer, send, sendRaw } from './support/http.ts';

/** Header values HTTP can carry: visible ASCII, spaces and tabs, and obs-text (Latin-1). */
const headerText = fc.oneof(
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 60 }),
  fc.string({ unit: fc.integer({ min: 0x80, max: 0xff }).map((c) => String.fromCharCode(c)), maxLength: 10 }),
  fc.constantFrom('', ' ', '\t', 'x'.repeat(8_000)),
);

describe('fuzzing through the local gateway (HTTP)', () => {
  let handle: DatabaseHandle;
  let gateway: Gateway;
  let tenant: Tenant;
  /** A workspace with what every route's request names (test/helpers/route-requests.ts). */
  let world: World;
  let created = 0;
  const tallies: Tally[] = [];
  const gatewayOwn = new Map<number, number>();

  beforeAll(async () => {
    handle = await freshDatabase();
    tenant = await createTenant(handle.db);
    world = await buildWorld(handle);
    gateway = await startGateway({ deps: { database: handle, logger: silentLogger } });
  });
  afterAll(async () => {
    for (const tally of tallies) tally.report();
    console.info(`[fuzz] gateway's own answers: ${JSON.stringify(Object.fromEntries(gatewayOwn))}`);
    await gateway?.close();
    await handle?.close();
  });
  const tally = (name: string) => {
    const t = new Tally(name);
    tallies.push(t);
    return t;
  };

  /**
   * Every answer over HTTP: never a 5xx; a function's answer keeps the handler invariants; API
   * Gateway's own answer is its exact bytes (those carry no cache-control: see docs/security.md).
   */
  const judge = (route: RouteName, answer: HttpAnswer) => {
    expect(answer.statusCode, answer.body).toBeLessThan(500);
    // Node's own refusal of a header block over 16 KiB: no body (see the last test below).
    if (answer.statusCode === 431) return undefined;
    if (answer.fromGateway) {
      expect(answer.body).toBe(gatewayBodyFor(answer.statusCode, String(answer.headers['x-request-id'])));
      expect(answer.headers).toMatchObject({
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
      });
      gatewayOwn.set(answer.statusCode, (gatewayOwn.get(answer.statusCode) ?? 0) + 1);
      return undefined;
    }
    const checked = checkAnswer(route, answer);
    if (answer.statusCode === 201 && answer.headers['idempotent-replayed'] !== 'true') created++;
    return checked;
  };

  const authorization = () => `Bearer ${tenant.token}`;

  it('POST /agents: random, broken and near-valid bodies under random headers never get a 5xx', async () => {
    const seen = tally('gateway POST /agents');
    const before = await rowCounts(handle.db);
    const start = created;
    const body = fc.oneof(
      validCreateBody.map((b) => JSON.stringify({ ...b, slug: undefined })),
      fc
        .tuple(validCreateBody, fc.array(mutation, { minLength: 1, maxLength: 2 }))
        .map(([b, ms]) => JSON.stringify(ms.reduce<unknown>((x, m) => applyMutation(x, m), b)) ?? ''),
      anyJson.map((v) => JSON.stringify(v) ?? ''),
      anyText,
    );
    const headers = fc.record(
      {
        'content-type': fc.oneof(
          { weight: 4, arbitrary: fc.constantFrom('application/json', 'application/json; charset=utf-8') },
          { weight: 1, arbitrary: fc.constantFrom('text/plain', 'application/xml') },
          { weight: 1, arbitrary: headerText },
        ),
        'idempotency-key': fc.oneof(fc.stringMatching(/^[\x21-\x7e]{1,20}$/), headerText),
        authorization: fc.oneof(
          { weight: 6, arbitrary: fc.constant(authorization()) },
          { weight: 1, arbitrary: headerText },
          { weight: 1, arbitrary: fc.constant(`Bearer ${generateToken()}`) },
        ),
      },
      { requiredKeys: ['authorization'] },
    );
    await fc.assert(
      fc.asyncProperty(body, headers, async (text, hdrs) => {
        const answer = await send(gateway.url, {
          method: 'POST',
          path: '/agents',
          headers: hdrs,
          body: text,
        });
        seen.record(answer.statusCode, text);
        judge('create-agent', answer);
      }),
      { numRuns: runs(300), seed: fuzzSeed },
    );
    const after = await rowCounts(handle.db);
    expect(after.agents - before.agents).toBe(created - start);
    expect(after.agent_versions - before.agent_versions).toBe(created - start);
  });

  it('GET /agents and /sessions: raw query strings of any shape never get a 5xx', async () => {
    const seen = tally('gateway GET lists, raw query strings');
    const before = await rowCounts(handle.db);
    const query = fc.oneof(
      fc.constantFrom(
        'limit=1&limit=2',
        'limit=-1',
        'limit=1.5',
        'offset=99999999999999999999',
        'limit=%',
        'limit=%zz',
        'a=1&&&b',
        '&',
        '=',
        '==',
        '%00=1',
        `q=${'%F0%9F%98%80'.repeat(50)}`,
        `limit=${'9'.repeat(5_000)}`,
        'cursor=',
        'order=asc&cursor=',
        'status=COMPLETED&status=PENDING,IN_PROGRESS',
      ),
      fc
        .array(
          fc.tuple(
            fc.constantFrom('limit', 'offset', 'cursor', 'order', 'status', 'q', 'agentId', 'x', '__proto__'),
            fc.oneof(fc.integer().map(String), headerText),
          ),
          { maxLength: 5 },
        )
        .map((pairs) => new URLSearchParams(pairs).toString()),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<RouteName>('list-agents', 'list-sessions'),
        query,
        async (route, q) => {
          const path = `${route === 'list-agents' ? '/agents' : '/sessions'}?${q}`;
          const answer = await send(gateway.url, { path, headers: { authorization: authorization() } });
          seen.record(answer.statusCode, q);
          judge(route, answer);
          if (!answer.fromGateway && answer.statusCode === 200) {
            for (const item of JSON.parse(answer.body)) expect(item.workspaceId).toBe(tenant.workspaceId);
          }
        },
      ),
      { numRuns: runs(250), seed: fuzzSeed },
    );
    const after = await rowCounts(handle.db);
    expect(after.agents).toBe(before.agents);
  });

  it('any request target, method and header set: a route’s answer, or API Gateway’s own, never a 5xx', async () => {
    const seen = tally('gateway raw request lines');
    // Each route's own path, with its ids: any method on it, with any suffix.
    const own = await Promise.all(routeKeys.map(async (key) => (await routeRequests[key](world)).path));
    const target = fc.oneof(
      fc
        .tuple(fc.constantFrom(...own), fc.constantFrom('', '/', '?', '?x=1', '/..', '%2F', '/x'))
        .map(([p, end]) => `${p}${end}`),
      fc.constantFrom(
        '/agents',
        '/agents/',
        '/AGENTS',
        '//agents',
        '/agents%2F',
        '/%61gents',
        '/agents/..',
        '/sessions?',
        '/sessions#frag',
        'http://evil.example/sessions',
        '*',
        '/agents?limit=1 HTTP/1.1\r\nx: y',
        `/${'a'.repeat(4_000)}`,
      ),
      fc
        .string({
          unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)),
          maxLength: 40,
        })
        .map((s) => `/${s}`),
    );
    const method = fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'HEAD', 'PATCH', 'get', 'BREW');
    await fc.assert(
      fc.asyncProperty(target, method, fc.boolean(), async (t, m, withAuth) => {
        const head = `${m} ${t} HTTP/1.1\r\nhost: localhost${withAuth ? `\r\nauthorization: ${authorization()}` : ''}`;
        const { status, text } = await sendRaw(gateway.url, head);
        seen.record(status, head);
        // 400 is Node's own answer to a request line it cannot parse.
        expect(status, text.slice(0, 300)).toBeGreaterThanOrEqual(200);
        expect(status, text.slice(0, 300)).toBeLessThan(500);
      }),
      { numRuns: runs(200), seed: fuzzSeed },
    );
  });

  it('every route’s request under random headers and any raw query string: answered, refused with a problem or by API Gateway, never a 5xx, nothing written when refused', async () => {
    const seen = tally('gateway every route, headers and query strings');
    const requests = new Map<RouteKey, RouteRequest>();
    const requestOf = async (key: RouteKey) => {
      const request = requests.get(key) ?? (await routeRequests[key](world));
      requests.set(key, request);
      return request;
    };
    const headers = fc.record(
      {
        'content-type': fc.oneof(
          fc.constantFrom('application/json', 'application/merge-patch+json', 'text/plain'),
          headerText,
        ),
        'content-encoding': fc.constantFrom('identity', 'gzip', 'br', ''),
        'if-match': fc.oneof(fc.constantFrom('*', '"x"', 'W/"x"', '"a", "b"', '*, "x"', ''), headerText),
        'idempotency-key': fc.oneof(fc.stringMatching(/^[\x21-\x7e]{1,20}$/), headerText),
        authorization: fc.oneof(
          { weight: 6, arbitrary: fc.constant(`Bearer ${world.caller.token}`) },
          { weight: 1, arbitrary: headerText },
        ),
      },
      { requiredKeys: [] },
    );
    const query = fc.oneof(
      fc.constant(''),
      fc.constantFrom('limit=1', 'limit=1&limit=2', '%', '%zz', '&', '=', '%00=1', '__proto__=1', 'cursor='),
      fc
        .array(fc.tuple(fc.constantFrom('limit', 'offset', 'x', '__proto__', 'dryRun'), headerText), {
          maxLength: 3,
        })
        .map((pairs) => new URLSearchParams(pairs).toString()),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...routeKeys), headers, query, async (key, hdrs, q) => {
        const request = await requestOf(key);
        const http = httpRequestOf(world, { ...request, query: q });
        const sentHeaders = { ...http.headers, ...hdrs };
        const before = await tableStates(handle.db);
        const answer = await send(gateway.url, { ...http, headers: sentHeaders });
        seen.record(answer.statusCode, `${key} ${JSON.stringify(hdrs)} ?${q}`);
        judge(routes[key].name, answer);
        if (answer.statusCode >= 400) {
          await expectNothingWritten(handle.db, before, {
            status: answer.statusCode,
            idempotencyKey: sentHeaders['idempotency-key'],
          });
        } else {
          // Taken: its target changed; the next case of this route gets one of its own.
          requests.delete(key);
        }
      }),
      { numRuns: runs(250), seed: fuzzSeed },
    );
  });

  it('refuses headers past Node’s 16 KiB limit itself (431), before any route or authorizer runs', async () => {
    const { status, text } = await sendRaw(
      gateway.url,
      `GET /agents HTTP/1.1\r\nhost: localhost\r\nauthorization: ${authorization()}\r\nx-big: ${'x'.repeat(20_000)}`,
    );
    expect(status).toBe(431);
    // Node's bare answer: no body, and none of the handlers' headers.
    expect(text).not.toMatch(/x-request-id/i);
  });
});
