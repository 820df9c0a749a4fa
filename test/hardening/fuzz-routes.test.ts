import { createId } from '@paralleldrive/cuid2';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '#contract/routes.ts';
import { pathParamNames } from '#contract/schemas/path.ts';
import type { DatabaseHandle } from '#db/client.ts';
import { silentLogger } from '#functions/http/log.ts';
import { type Gateway, startGateway } from '#infra/local/gateway.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { setHeader } from '#test/helpers/events.ts';
import {
  bodyOf,
  buildWorld,
  httpRequestOf,
  pathValueOf,
  queryParamsOf,
  type RouteKey,
  routeKeys,
  routeRequests,
  toApiEvent,
  type World,
  withNewIdempotencyKey,
  withPathValues,
} from '#test/helpers/route-requests.ts';
import { expectNothingWritten, tableStates } from '#test/helpers/table-states.ts';
import { type App, buildApp, checkAnswer, type RouteName, routeSeed, runs, Tally } from './support/app.ts';
import { anyJson, anyText } from './support/arbitraries.ts';
import { send } from './support/http.ts';

/**
 * Hostile input on every route of the route table, each starting from its one valid request
 * (test/helpers/route-requests.ts) with one thing made wrong: its body (every route that takes
 * one, as its OpenAPI operation says), its query string, a path parameter. Every answer keeps
 * `checkAnswer`'s invariants (never a 5xx; a problem with the request id; no stack, SQL or driver
 * text), and a refused request writes nothing.
 */

/** What a body is sent as, and what it must be answered when the case decides it. */
interface HostileBody {
  kind: string;
  text: string;
  base64?: boolean;
  /** The Content-Type sent; `null`: none. */
  contentType: string | null;
  refused?: { status: number; error?: { path: string; message: string } };
}

const JSON_TYPE = 'application/json';

/** Characters nobody can read or store; NUL and lone surrogates Postgres cannot hold at all. */
const UNSTORABLE = [
  ['\u0000', 'must not contain the NUL character (U+0000)'],
  ['\ud800', 'must be valid Unicode text (it holds an unpaired surrogate)'],
  ['\udfff', 'must be valid Unicode text (it holds an unpaired surrogate)'],
] as const;
const UNREADABLE = [
  '\u0007',
  '\u001b[31m',
  '\u0085',
  '\u202e',
  '\u2066',
  '\u200b',
  '\u2060',
  '\ufeff',
  '\u00ad',
];

/** Media types no route takes a JSON body as. */
const NOT_JSON = [
  'text/plain',
  'application/xml',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=iso-8859-1',
  'application/json; charset=utf-16',
  'application/jsonx',
  'application/json-seq',
  'json',
  '*/*',
  '',
];

/** Every string member of a JSON value, as paths (the API's dot paths are their joins). */
function stringPaths(value: unknown, path: string[] = []): string[][] {
  if (typeof value === 'string') return [path];
  if (value && typeof value === 'object' && !Array.isArray(value))
    return Object.entries(value).flatMap(([key, item]) => stringPaths(item, [...path, key]));
  return [];
}

function withStringAt(value: unknown, path: string[], text: (current: string) => string): unknown {
  if (path.length === 0) return text(value as string);
  const [head, ...rest] = path as [string, ...string[]];
  const object = value as Record<string, unknown>;
  return { ...object, [head]: withStringAt(object[head], rest, text) };
}

/** A member name written with every character escaped: the same name to JSON, other bytes on the wire. */
const escaped = (name: string) =>
  `"${[...name].map((c) => `\\u${(c.codePointAt(0) as number).toString(16).padStart(4, '0')}`).join('')}"`;

/** Bodies for a route whose valid body is `base` (`{}` for one that takes an empty one). */
function hostileBody(base: Record<string, unknown>): fc.Arbitrary<HostileBody> {
  const valid = JSON.stringify(base);
  const members = Object.keys(base);
  const strings = stringPaths(base);
  const json = (kind: string, text: string, refused?: HostileBody['refused']): HostileBody => ({
    kind,
    text,
    contentType: JSON_TYPE,
    refused,
  });
  const arbitraries: fc.Arbitrary<HostileBody>[] = [
    anyJson.map((value) => json('any JSON', JSON.stringify(value) ?? 'null')),
    anyText.map((text) => json('any text', text)),
    fc
      .constantFrom('{', '{"a":}', "{'a':1}", '[1,]', '{"a":1}}', 'undefined', 'NaN', '{"a":01}', '\ufeff{}')
      .map((text) => json('not JSON', text, { status: 400 })),
    fc.nat({ max: 200 }).map((depth) =>
      json('deep', `${'['.repeat(40 + depth)}${']'.repeat(40 + depth)}`, {
        status: 400,
        error: { path: '(root)', message: 'must not nest more than 32 levels deep' },
      }),
    ),
    // The same member twice, the second time escaped or not: I-JSON refuses it, JSON.parse would not.
    fc
      .tuple(
        members.length ? fc.constantFrom(...members) : fc.constantFrom('x', 'name', '__proto__'),
        fc.jsonValue({ maxDepth: 1 }),
        fc.boolean(),
      )
      .map(([name, again, escapeIt]) => {
        const rest = members
          .filter((m) => m !== name)
          .map((m) => `${JSON.stringify(m)}:${JSON.stringify(base[m])}`);
        const first = `${JSON.stringify(name)}:${JSON.stringify(base[name] ?? 1)}`;
        const second = `${escapeIt ? escaped(name) : JSON.stringify(name)}:${JSON.stringify(again) ?? 'null'}`;
        return json('duplicate member', `{${[first, ...rest, second].join(',')}}`, {
          status: 400,
          error: { path: name, message: 'is given more than once' },
        });
      }),
    // NUL or a lone surrogate in a value (or, with none, a member's name): refused by its path.
    fc.tuple(fc.constantFrom(...UNSTORABLE), fc.nat()).map(([[char, message], i]) => {
      const path = strings[i % Math.max(1, strings.length)];
      if (!path) {
        const name = `x${char}`;
        return json('unstorable name', `{${JSON.stringify(name)}:1}`, {
          status: 400,
          error: { path: name, message: `(the field name) ${message}` },
        });
      }
      const body = withStringAt(base, path, (s) => `${s.slice(0, 1)}${char}${s.slice(1)}`);
      return json('unstorable text', JSON.stringify(body), {
        status: 400,
        error: { path: path.join('.'), message },
      });
    }),
    // Control, bidi and invisible characters: refused where a name must be readable, kept in free text.
    fc.tuple(fc.constantFrom(...UNREADABLE), fc.nat(), fc.boolean()).map(([char, i, alone]) => {
      const path = strings[i % Math.max(1, strings.length)];
      if (!path) return json('unreadable name', `{${JSON.stringify(`x${char}`)}:1}`, { status: 400 });
      return json(
        'unreadable text',
        JSON.stringify(withStringAt(base, path, (s) => (alone ? char : `${s}${char}`))),
      );
    }),
    // The valid body under a media type no route takes, or none: 415.
    fc.option(fc.constantFrom(...NOT_JSON), { nil: null }).map((contentType) => ({
      kind: 'not a JSON media type',
      text: valid,
      contentType,
      refused: { status: 415 },
    })),
    fc
      .string({
        unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
        maxLength: 40,
      })
      .map((contentType) => ({ kind: 'any media type', text: valid, contentType })),
    // Bytes that are not UTF-8, as API Gateway passes a binary body (base64).
    fc.constantFrom([0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xe9]).map((bytes) => ({
      kind: 'not UTF-8',
      text: Buffer.concat([Buffer.from('{"x":"'), Buffer.from(bytes), Buffer.from('"}')]).toString('base64'),
      base64: true,
      contentType: JSON_TYPE,
      refused: { status: 400 },
    })),
  ];
  return fc.oneof(...arbitraries);
}

/** Query parameter names no route takes: look-alikes of real ones, prototype names, anything. */
const unknownName = fc.oneof(
  fc.constantFrom(
    'LIMIT',
    'Limit',
    'limit ',
    ' offset',
    'limit[]',
    'filter[status]',
    'status.eq',
    '__proto__',
    'constructor',
    'toString',
    'hasOwnProperty',
    'dryRun',
    'workspaceId',
    'fields',
    'expand',
    'callback',
    'naïve',
    '😀',
    'a=b',
  ),
  fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_.-]{0,15}$/),
);
/** Query values of any text that can be percent-encoded (no lone surrogates). */
const queryValue = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.constantFrom('', '1', 'true', '%', '\u0000', "'; drop table agents; --", 'x'.repeat(2_000)),
);

/** Path values that name nothing: too long, not a cuid, encoded slashes and dots, any Unicode. */
const oddPathValue = fc.oneof(
  fc.constantFrom(
    'x'.repeat(25),
    'a'.repeat(2_000),
    'NOT-A-CUID',
    '0',
    '-1',
    '..',
    '.',
    '%2E%2E',
    '%2F',
    '%2F%2F',
    '%252F',
    '%5C',
    '%00',
    '%20',
    '%C3%28',
    '%FF',
    '%E2%80%AE',
    'null',
    'undefined',
    '*',
    '%2A',
  ),
  fc.constant(null).map(() => createId().toUpperCase()),
  fc.constant(null).map(() => `${createId()}%2F..`),
  fc.constant(null).map(() => `${createId()}%2Fversions`),
  fc.constant(null).map(() => `${createId()}%00`),
  fc.constant(null).map(() => `${createId()}x`),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }).map(encodeURIComponent),
  fc.stringMatching(/^[a-z0-9]{1,24}$/),
);

describe('hostile input on every route', () => {
  let handle: DatabaseHandle;
  let app: App;
  let world: World;
  let gateway: Gateway;
  const bodies = new Tally('every route, hostile bodies');
  const queries = new Tally('every route, unknown query parameters');
  const paths = new Tally('every route, odd path values (HTTP)');

  beforeAll(async () => {
    handle = await freshDatabase();
    app = buildApp({ database: handle, logger: silentLogger });
    world = await buildWorld(handle);
    gateway = await startGateway({ deps: { database: handle, logger: silentLogger } });
  });
  afterAll(async () => {
    for (const tally of [bodies, queries, paths]) tally.report();
    await gateway?.close();
    await handle?.close();
  });

  const nameOf = (key: RouteKey): RouteName => routes[key].name;
  const bodyRoutes = routeKeys.filter((key) => bodyOf(key) !== undefined);
  const pathRoutes = routeKeys.filter((key) => pathParamNames(routes[key].path).length > 0);

  it('the route table is what is fuzzed: every route, each with a body or a path parameter in its group', () => {
    expect(routeKeys).toEqual(Object.keys(routes));
    // Every route changing state declares a body (an optional, empty one where it takes no fields);
    // a DELETE takes none.
    for (const key of routeKeys.filter((k) => routes[k].method !== 'GET' && routes[k].method !== 'DELETE'))
      expect([key, bodyOf(key) !== undefined]).toEqual([key, true]);
    expect(pathRoutes.length).toBeGreaterThan(0);
  });

  it.each(bodyRoutes)(
    '%s: any body — JSON of any shape, not JSON, duplicate members, NUL, control or invisible characters, odd media types — is answered or refused with a 4xx problem, never a 5xx, writing nothing when refused',
    async (key) => {
      let request = await routeRequests[key](world);
      const base = (request.body ?? {}) as Record<string, unknown>;
      await fc.assert(
        fc.asyncProperty(hostileBody(base), async (sent) => {
          const target = withNewIdempotencyKey(request);
          const event = toApiEvent(world, key, target);
          event.body = sent.text;
          event.isBase64Encoded = sent.base64 === true;
          setHeader(event, 'content-type', sent.contentType ?? undefined);
          const before = await tableStates(handle.db);
          const result = await app[key](event);
          bodies.record(result.statusCode, `${key} ${sent.kind}: ${sent.text.slice(0, 200)}`);
          const { status, problem } = checkAnswer(nameOf(key), result);
          const { kind, refused } = sent;
          if (refused) {
            expect({ kind, status }, result.body).toEqual({ kind, status: refused.status });
            if (refused.error) expect(problem?.errors).toContainEqual(refused.error);
          }
          if (status >= 400) {
            // Refused for its body: before any claim, so nothing at all (docs/decisions.md, "Idempotency").
            if (refused) expect(await tableStates(handle.db)).toEqual(before);
            else
              await expectNothingWritten(handle.db, before, {
                status,
                idempotencyKey: target.headers?.['idempotency-key'],
              });
          } else {
            // Taken: the target changed (published, started…); the next case gets one of its own.
            request = await routeRequests[key](world);
          }
        }),
        { numRuns: runs(50), seed: routeSeed(key) },
      );
    },
  );

  it.each(routeKeys)(
    '%s: unknown query parameters are a 400 problem naming each, writing nothing',
    async (key) => {
      const request = await routeRequests[key](world);
      const known = new Set(queryParamsOf(key));
      const params = fc.uniqueArray(
        fc.tuple(
          unknownName.filter((name) => !known.has(name)),
          queryValue,
        ),
        { minLength: 1, maxLength: 3, selector: ([name]) => name },
      );
      const before = await tableStates(handle.db);
      await fc.assert(
        fc.asyncProperty(params, async (pairs) => {
          const query = pairs
            .map(([n, value]) => `${encodeURIComponent(n)}=${encodeURIComponent(value)}`)
            .join('&');
          const result = await app[key](toApiEvent(world, key, withNewIdempotencyKey({ ...request, query })));
          queries.record(result.statusCode, `${key} ?${query.slice(0, 200)}`);
          const { problem } = checkAnswer(nameOf(key), result);
          expect(result.statusCode, result.body).toBe(400);
          expect(problem?.type).toBe('https://voice-agent-admin.dev/problems/validation');
          const named = problem?.errors?.map((e) => e.path);
          // Every one named, prototype names too (contract/schemas/common.ts).
          for (const [name] of pairs) expect(named).toContain(name);
        }),
        { numRuns: runs(15), seed: routeSeed(key) },
      );
      expect(await tableStates(handle.db)).toEqual(before);
    },
  );

  it.each(pathRoutes)(
    '%s: odd path values — too long, not a cuid, encoded slashes and dots, any Unicode — are a 404 problem naming no resource, through the gateway, writing nothing',
    async (key) => {
      const request = await routeRequests[key](world);
      const params = pathParamNames(routes[key].path);
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...params), oddPathValue, async (param, value) => {
          const sent = withNewIdempotencyKey(
            withPathValues(key, request, (name) =>
              name === param ? value : pathValueOf(key, request, name),
            ),
          );
          const before = await tableStates(handle.db);
          const answer = await send(gateway.url, httpRequestOf(world, sent));
          paths.record(answer.statusCode, `${key} ${sent.path.slice(0, 200)}`);
          expect(answer.fromGateway, `${sent.path}: ${answer.body}`).toBe(false);
          const { problem } = checkAnswer(nameOf(key), answer);
          expect(answer.statusCode, `${sent.path}: ${answer.body}`).toBe(404);
          expect(problem?.type).toBe('https://voice-agent-admin.dev/problems/resource-not-found');
          expect(problem?.detail).toMatch(
            /^No (agent|version|session|ledger entry|webhook endpoint|webhook delivery) with this id in this workspace\.$/,
          );
          // An id-shaped value passes to the statement: a keyed create then records its 404 (decisions.md).
          await expectNothingWritten(handle.db, before, {
            status: 404,
            idempotencyKey: sent.headers?.['idempotency-key'],
          });
        }),
        { numRuns: runs(20), seed: routeSeed(key) },
      );
    },
  );
});
