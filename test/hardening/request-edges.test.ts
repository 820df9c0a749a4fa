import { gzipSync } from 'node:zlib';
import { sql } from 'drizzle-orm';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkspaceCreate } from '#contract/admin.ts';
import { OFFSET_MAX } from '#contract/limits.ts';
import { routes } from '#contract/routes.ts';
import type { DatabaseHandle } from '#db/client.ts';
import { hashToken } from '#db/queries/api-keys.ts';
import { createLogger, silentLogger } from '#functions/http/log.ts';
import type { ApiEvent, ApiResult } from '#functions/http/types.ts';
import { type Gateway, startGateway } from '#infra/local/gateway.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { apiEvent, setHeader } from '#test/helpers/events.ts';
import {
  bodyOf,
  buildWorld,
  type RouteKey,
  type RouteRequest,
  routeKeys,
  routeRequests,
  toApiEvent,
  type World,
  withNewIdempotencyKey,
} from '#test/helpers/route-requests.ts';
import { tableStates } from '#test/helpers/table-states.ts';
import { createTenant, type Tenant } from '#test/helpers/tenants.ts';
import { type App, buildApp, checkAnswer, rowCounts } from './support/app.ts';
import { throughAuthorizer } from './support/gateway-flow.ts';
import { send, sendRaw } from './support/http.ts';

/** The fifteen request edges of issue 11, each answered as the README says. */
describe('request edges, each refused or answered by name', () => {
  let handle: DatabaseHandle;
  let tenant: Tenant;
  let app: App;
  let gateway: Gateway;

  beforeAll(async () => {
    handle = await freshDatabase();
    tenant = await createTenant(handle.db);
    app = buildApp({ database: handle, logger: silentLogger });
    gateway = await startGateway({ deps: { database: handle, logger: silentLogger } });
  });
  afterAll(async () => {
    await gateway?.close();
    await handle?.close();
  });

  const post = (options: { body?: Buffer | string; headers?: Record<string, string>; query?: string }) => {
    const bytes = Buffer.isBuffer(options.body) ? options.body : undefined;
    const event = apiEvent({
      method: 'POST',
      path: '/agents',
      query: options.query,
      rawBody: bytes ? bytes.toString('base64') : ((options.body as string | undefined) ?? '{"name":"Edge"}'),
      headers: options.headers,
      caller: tenant,
    });
    if (bytes) event.isBase64Encoded = true;
    return app.createAgent(event);
  };
  const list = (path: '/agents' | '/sessions', query: string) =>
    (path === '/agents' ? app.listAgents : app.listSessions)(apiEvent({ path, query, caller: tenant }));

  /** The answer's problem, after every invariant of an answer was checked. */
  const problemOf = (route: 'create-agent' | 'list-agents' | 'list-sessions', result: ApiResult) => {
    const { problem } = checkAnswer(route, result);
    if (!problem) throw new Error(`expected a problem, got ${result.statusCode}: ${result.body}`);
    return problem;
  };
  const paths = (result: ApiResult) =>
    (JSON.parse(result.body) as { errors?: { path: string }[] }).errors?.map((e) => e.path) ?? [];

  it('1. refuses a body that is not UTF-8 (400), through the gateway as sent', async () => {
    const bytes = Buffer.concat([Buffer.from('{"name":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
    const before = await rowCounts(handle.db);
    const direct = await post({ body: bytes });
    expect(direct.statusCode).toBe(400);
    expect(problemOf('create-agent', direct).detail).toMatch(/not valid UTF-8/);
    const viaGateway = await send(gateway.url, {
      method: 'POST',
      path: '/agents',
      headers: { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json' },
      body: bytes,
    });
    expect(viaGateway.statusCode).toBe(400);
    expect(viaGateway.body).toMatch(/not valid UTF-8/);
    expect(await rowCounts(handle.db)).toEqual(before);
  });

  it('2. refuses any charset but UTF-8, and any other media type parameter (415)', async () => {
    for (const type of [
      'application/json; charset=iso-8859-1',
      'application/json; charset=utf-16',
      'application/json; charset=utf-8; boundary=x',
      'application/jsonx',
    ]) {
      const result = await post({ headers: { 'content-type': type } });
      expect(result.statusCode, type).toBe(415);
      expect(problemOf('create-agent', result).detail).toContain(type);
    }
    for (const type of [
      'application/json',
      'Application/JSON; Charset=UTF-8',
      'application/json;charset="utf-8"',
    ]) {
      expect(
        (await post({ body: JSON.stringify({ name: type }), headers: { 'content-type': type } })).statusCode,
      ).toBe(201);
    }
  });

  it('3. refuses any Content-Encoding it does not decode (415 with Accept-Encoding), gzipped or not', async () => {
    for (const [encoding, body] of [
      ['gzip', '{"name":"Plain"}'],
      ['gzip', gzipSync('{"name":"Zipped"}')],
      ['br', '{"name":"Plain"}'],
    ] as const) {
      const result = await post({ body, headers: { 'content-encoding': encoding } });
      expect(result.statusCode).toBe(415);
      expect(result.headers['accept-encoding']).toBe('identity');
      expect(problemOf('create-agent', result).detail).toBe(
        `Content-Encoding ${encoding} is not supported: send the body uncompressed.`,
      );
    }
    expect(
      (await post({ body: '{"name":"Identity"}', headers: { 'content-encoding': 'identity' } })).statusCode,
    ).toBe(201);
  });

  it('4. refuses duplicate member names (400 naming each), however they are escaped', async () => {
    const result = await post({
      body: '{"name":"A","\\u006eame":"B","version":{"followUp":true,"followUp":false}}',
    });
    expect(result.statusCode).toBe(400);
    expect(paths(result)).toEqual(['name', 'version.followUp']);
    expect(problemOf('create-agent', result).detail).toBe(
      'The request body is invalid: name is given more than once; version.followUp is given more than once.',
    );
  });

  it('5. refuses NUL in any text parameter by name before the database sees it', async () => {
    for (const [path, query, name] of [
      ['/agents', 'q=%00', 'q'],
      ['/agents', 'slug=a%00b', 'slug'],
      ['/sessions', 'cursor=%00', 'cursor'],
      ['/sessions', 'status=COMPLETED&createdAfter=2026%00', 'createdAfter'],
    ] as const) {
      const result = await list(path, query);
      expect(result.statusCode, query).toBe(400);
      expect(paths(result)).toEqual([name]);
      expect(problemOf(path === '/agents' ? 'list-agents' : 'list-sessions', result).detail).toBe(
        `The query string is invalid: ${name} must not contain the NUL character (U+0000).`,
      );
    }
  });

  it('6. refuses a cursor from /sessions on /agents (and the other way round), naming cursor', async () => {
    for (let i = 0; i < 2; i++) await post({ body: `{"name":"Paged ${i}"}` });
    const first = await list('/agents', 'cursor=&limit=1');
    const cursor = /cursor=([^&>]+)/.exec(first.headers.link ?? '')?.[1];
    expect(cursor).toBeDefined();
    expect((await list('/agents', `cursor=${cursor}&limit=1`)).statusCode).toBe(200);
    const foreign = await list('/sessions', `cursor=${cursor}&limit=1`);
    expect(foreign.statusCode).toBe(400);
    expect(paths(foreign)).toEqual(['cursor']);
    expect(problemOf('list-sessions', foreign).detail).toBe(
      'The cursor is invalid: was issued for another workspace, list, order or filters.',
    );
  });

  it('7. counts lengths in code points, as Postgres does: 255 emoji fit, 256 do not', async () => {
    const fits = await post({
      body: JSON.stringify({ name: '😀'.repeat(255), description: '😀'.repeat(500) }),
    });
    expect(fits.statusCode).toBe(201);
    expect((JSON.parse(fits.body) as { name: string }).name).toBe('😀'.repeat(255));
    const over = await post({ body: JSON.stringify({ name: '😀'.repeat(256) }) });
    expect(over.statusCode).toBe(400);
    expect(JSON.parse(over.body).errors).toEqual([
      { path: 'name', message: 'must be at most 255 characters' },
    ]);
  });

  it('8. refuses names nobody can read: invisible only, control characters, bidi overrides; descriptions keep line breaks', async () => {
    for (const [name, message] of [
      ['\u200b\u200b\u2060', 'must contain at least one visible character'],
      ['Ring\u0007', 'must not contain control characters'],
      ['\u001b[31mRed', 'must not contain control characters'],
      ['Next\u0085Line', 'must not contain control characters'],
      ['invoice\u202eexe.pdf', 'must not contain bidirectional override characters'],
      ['a\u2066b\u2069', 'must not contain bidirectional override characters'],
    ]) {
      const result = await post({ body: JSON.stringify({ name }) });
      expect(result.statusCode, JSON.stringify(name)).toBe(400);
      expect(JSON.parse(result.body).errors).toEqual([{ path: 'name', message }]);
    }
    const described = await post({
      body: JSON.stringify({ name: 'Lines', description: 'One\nTwo\r\n\tThree' }),
    });
    expect(described.statusCode).toBe(201);
    const bell = await post({ body: JSON.stringify({ name: 'Bell', description: 'ding\u0007' }) });
    expect(JSON.parse(bell.body).errors).toEqual([
      { path: 'description', message: 'must not contain control characters other than line breaks and tabs' },
    ]);
  });

  it('9. words every message itself: no "Invalid key: Expected never", no Valibot type names', async () => {
    const result = await post({
      body: JSON.stringify({
        name: 'Words',
        version: {
          inputMode: 'SMS',
          config: { tts: { provider: 'TTS_PROVIDER_1', model: 'TTS_MODEL_1A', voiceId: 'v', e: 1 } },
        },
      }),
    });
    expect(result.statusCode).toBe(400);
    expect(JSON.parse(result.body).errors).toEqual([
      { path: 'version.config.tts.e', message: 'is not a known field' },
      { path: 'version.inputMode', message: 'must be an array, not a string' },
    ]);
    expect(result.body).not.toMatch(/Invalid|Expected|never|Array/);
  });

  it('10. says why a deeply nested body is refused: detail and errors agree', async () => {
    const result = await post({ body: `{"name":${'['.repeat(5_000)}${']'.repeat(5_000)}}` });
    expect(result.statusCode).toBe(400);
    const problem = problemOf('create-agent', result);
    expect(problem.errors).toEqual([{ path: '(root)', message: 'must not nest more than 32 levels deep' }]);
    expect(problem.detail).toBe(
      'The request body is invalid: (root) must not nest more than 32 levels deep.',
    );
  });

  it('11. tells an out-of-range number its bound, however many digits it has', async () => {
    const DEEPER = `must be at most ${OFFSET_MAX}: page deeper with cursor (the Link: rel="next" of the page before switches to one)`;
    for (const [query, path, message] of [
      ['offset=9999999999999999999', 'offset', DEEPER],
      [`offset=${'9'.repeat(400)}`, 'offset', DEEPER],
      ['limit=99999999999999999999', 'limit', 'must be at most 250'],
    ] as const) {
      const result = await list('/agents', query);
      expect(JSON.parse(result.body).errors, query).toEqual([{ path, message }]);
    }
  });

  it('12. builds Link from the API’s own base URL: never from Host, which the gateway refuses when it is no host', async () => {
    const malicious = await sendRaw(
      gateway.url,
      `GET /agents?limit=1 HTTP/1.1\r\nhost: a>b\r\nauthorization: Bearer ${tenant.token}`,
    );
    expect(malicious.status).toBe(400);
    expect(malicious.text).not.toContain('a>b');
    const good = await send(gateway.url, {
      path: '/agents?limit=1',
      headers: { authorization: `Bearer ${tenant.token}`, host: 'api.example.com:8443' },
    });
    expect(good.headers.link).toBe(`<${gateway.url}/agents?limit=1&offset=1>; rel="next"`);
    // A handler given such an event anyway (another front) links relative to the request.
    const event: ApiEvent = apiEvent({ path: '/agents', query: 'limit=1', caller: tenant });
    event.requestContext.domainName = 'a>b';
    expect((await app.listAgents(event)).headers.link).toBe('</agents?limit=1&offset=1>; rel="next"');
  });

  it('13. refuses unknown query parameters on POST /agents, as the lists do', async () => {
    const before = await rowCounts(handle.db);
    const result = await post({ query: 'dryRun=true' });
    expect(result.statusCode).toBe(400);
    expect(JSON.parse(result.body).errors).toEqual([{ path: 'dryRun', message: 'is not a known field' }]);
    expect(await rowCounts(handle.db)).toEqual(before);
  });

  it('14. writes no token material when the authorizer fails: no token, no hash, no prefix beyond the key id', async () => {
    const broken = await freshDatabase();
    const victim = await createTenant(broken.db);
    await broken.db.execute(sql`drop table api_keys cascade`);
    const lines: string[] = [];
    const logged = buildApp({ database: broken, logger: createLogger((line) => lines.push(line), 'debug') });
    try {
      const answer = await throughAuthorizer(
        logged,
        'list-agents',
        apiEvent({ path: '/agents', query: 'limit=1', caller: victim }),
      );
      // Deferred, never API Gateway's bare 500: the handler answered (a bug here: 500 problem).
      expect(answer.kind).toBe('handler');
      const text = lines.join('\n');
      expect(text).toContain('authorizer deferred');
      for (const secret of [
        victim.token,
        victim.token.slice(4),
        hashToken(victim.token),
        victim.token.slice(4, 12),
      ]) {
        expect(text).not.toContain(secret);
      }
    } finally {
      await broken.close();
    }
  });

  it('15. our own 401 and 403 answers carry WWW-Authenticate; API Gateway’s own answers carry what the README says', async () => {
    const unauthenticated = await app.listAgents(apiEvent({ path: '/agents', caller: null }));
    expect(unauthenticated.statusCode).toBe(401);
    expect(unauthenticated.headers['www-authenticate']).toBe('Bearer');
    const scopeless = await app.listSessions(
      apiEvent({ path: '/sessions', caller: tenant, scopes: 'agents:read' }),
    );
    expect(scopeless.statusCode).toBe(403);
    expect(scopeless.headers['www-authenticate']).toBe(
      'Bearer error="insufficient_scope", scope="sessions:read"',
    );
    // API Gateway's own, as the gateway responses shape them: a problem with our headers.
    for (const [path, headers, status] of [
      ['/agents', {}, 401],
      ['/agents', { authorization: 'Bearer nope' }, 403],
      ['/nowhere', {}, 404],
    ] as const) {
      // A connection of its own: a kept-alive one may be closed by the server just as it is reused.
      const answer = await send(gateway.url, { path, headers: { ...headers, connection: 'close' } });
      expect(answer.statusCode).toBe(status);
      expect(answer.headers['content-type']).toBe('application/problem+json');
      expect(answer.headers['x-request-id']).toBe(answer.headers['x-amzn-requestid']);
      expect(answer.headers).toMatchObject({
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
      });
      expect(answer.fromGateway).toBe(true);
    }
  });
});

/**
 * The edges above that concern every route, on every route of the route table (its one valid
 * request, test/helpers/route-requests.ts, with one thing made wrong): a route added there is
 * held to them at once. The body edges apply to each route that takes a body (its OpenAPI operation).
 */
describe('request edges on every route', () => {
  let handle: DatabaseHandle;
  let app: App;
  let world: World;

  beforeAll(async () => {
    handle = await freshDatabase();
    app = buildApp({ database: handle, logger: silentLogger });
    world = await buildWorld(handle);
  });
  afterAll(async () => {
    await handle?.close();
  });

  const bodyRoutes = routeKeys.filter((key) => bodyOf(key) !== undefined);

  /** The route's request with `change` made to its event: refused as `expected` says, writing nothing. */
  async function expectRefused(
    key: RouteKey,
    change: (event: ApiEvent) => void,
    expected: { status: number; detail?: string | RegExp; errors?: { path: string; message: string }[] },
    request?: RouteRequest,
  ) {
    const sent = withNewIdempotencyKey(request ?? (await routeRequests[key](world)));
    const event = toApiEvent(world, key, sent);
    change(event);
    const before = await tableStates(handle.db);
    const result = await app[key](event);
    const { problem } = checkAnswer(routes[key].name, result);
    expect({ status: result.statusCode, body: result.body }).toEqual({
      status: expected.status,
      body: expect.any(String),
    });
    if (typeof expected.detail === 'string') expect(problem?.detail).toBe(expected.detail);
    else if (expected.detail) expect(problem?.detail).toMatch(expected.detail);
    if (expected.errors) expect(problem?.errors).toEqual(expected.errors);
    expect(await tableStates(handle.db)).toEqual(before);
    return result;
  }
  /** The event's body as sent (as JSON, unless a test changes its Content-Type after). */
  const body = (event: ApiEvent, text: string, base64 = false) => {
    event.body = base64 ? Buffer.from(text, 'latin1').toString('base64') : text;
    event.isBase64Encoded = base64;
    setHeader(event, 'content-type', 'application/json');
  };
  /** The request's JSON body as sent: its fixture body, or `{}` for a route whose body is optional. */
  const jsonOf = (request: RouteRequest) => JSON.stringify(request.body ?? {});

  it.each(bodyRoutes)('%s: refuses a body that is not UTF-8 (400)', async (key) => {
    await expectRefused(key, (event) => body(event, '{"x":"caf\xe9"}', true), {
      status: 400,
      detail: 'The request body is not valid UTF-8, the only encoding JSON may use.',
    });
  });

  it.each(bodyRoutes)(
    '%s: refuses any charset but UTF-8, any other media type parameter, and no media type at all (415)',
    async (key) => {
      for (const type of [
        'application/json; charset=iso-8859-1',
        'application/json; charset=utf-8; boundary=x',
        'application/jsonx',
        'text/plain',
        undefined,
      ]) {
        const request = await routeRequests[key](world);
        await expectRefused(
          key,
          (event) => {
            body(event, jsonOf(request));
            setHeader(event, 'content-type', type);
          },
          { status: 415, detail: type === undefined ? /Content-Type/ : new RegExp(escapeRegExp(type)) },
          request,
        );
      }
    },
  );

  it.each(bodyRoutes)(
    '%s: refuses a Content-Encoding it does not decode (415 with Accept-Encoding)',
    async (key) => {
      const request = await routeRequests[key](world);
      const result = await expectRefused(
        key,
        (event) => {
          body(event, jsonOf(request));
          setHeader(event, 'content-encoding', 'gzip');
        },
        { status: 415, detail: 'Content-Encoding gzip is not supported: send the body uncompressed.' },
        request,
      );
      expect(result.headers['accept-encoding']).toBe('identity');
    },
  );

  it.each(bodyRoutes)(
    '%s: refuses a member given twice (400 naming it), however it is escaped',
    async (key) => {
      const request = await routeRequests[key](world);
      const sent = (request.body ?? { x: 1 }) as Record<string, unknown>;
      const [name, value] = Object.entries(sent)[0] as [string, unknown];
      // The first member again, its name escaped: the same name once unescaped.
      const escapedName = [...name]
        .map((c) => `\\u${(c.codePointAt(0) as number).toString(16).padStart(4, '0')}`)
        .join('');
      const text = JSON.stringify(sent).replace(/}$/, `,"${escapedName}":${JSON.stringify(value)}}`);
      await expectRefused(
        key,
        (event) => body(event, text),
        {
          status: 400,
          errors: [{ path: name, message: 'is given more than once' }],
        },
        request,
      );
    },
  );

  it.each(routeKeys)('%s: refuses an unknown query parameter (400 naming it)', async (key) => {
    const request = await routeRequests[key](world);
    await expectRefused(
      key,
      () => {},
      {
        status: 400,
        errors: [{ path: 'dryRun', message: 'is not a known field' }],
      },
      // Beside the route's own (required) parameters, so the unknown one is the only fault.
      { ...request, query: request.query ? `${request.query}&dryRun=true` : 'dryRun=true' },
    );
  });
});

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const PROBLEMS = 'https://voice-agent-admin.dev/problems/';

/** The whole answer of a problem: status, headers that matter, and every member of the body. */
function expectWholeProblem(result: ApiResult, expected: Record<string, unknown>) {
  expect(result.statusCode).toBe(expected.status);
  expect(result.headers['content-type']).toBe('application/problem+json');
  expect(JSON.parse(result.body)).toEqual({ ...expected, requestId: result.headers['x-request-id'] });
}

const validation = (what: string, errors: { path: string; message: string }[]) => ({
  type: `${PROBLEMS}validation`,
  title: 'Bad Request',
  status: 400,
  detail: `The ${what} is invalid: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}.`,
  errors,
});

/** The smallest inputs that once got past parsing or were named wrongly, each named now. */
describe('request bodies and query strings, each fault named by its path', () => {
  let handle: DatabaseHandle;
  let app: App;
  let tenant: Tenant;

  beforeAll(async () => {
    handle = await freshDatabase();
    app = buildApp({ database: handle, logger: silentLogger });
    tenant = await createTenant(handle.db);
  });
  afterAll(() => handle?.close());

  const post = (rawBody: string, headers: Record<string, string> = {}) =>
    app.createAgent(apiEvent({ method: 'POST', path: '/agents', rawBody, headers, caller: tenant }));
  const listAgents = (query: string) => app.listAgents(apiEvent({ path: '/agents', query, caller: tenant }));
  const listSessions = (query: string) =>
    app.listSessions(apiEvent({ path: '/sessions', query, caller: tenant }));
  const pathsOf = (body: string) => (JSON.parse(body).errors ?? []).map((e: { path: string }) => e.path);

  describe('the body', () => {
    // body.ts recorded the reviver's key, not the path to it.
    it('names a NUL character nested in the body by its dot path', async () => {
      const result = await post('{"name":"A","version":{"systemPrompt":"a\\u0000b"}}');
      expect(result.statusCode).toBe(400);
      expect(pathsOf(result.body)).toEqual(['version.systemPrompt']);
    });

    it('names a NUL character in a body that is a bare string as (root)', async () => {
      const result = await post('"a\\u0000b"');
      expect(pathsOf(result.body)).toEqual(['(root)']);
    });

    // Unpaired UTF-16 surrogates reached the database: Postgres stored U+FFFD (the data silently
    // changed); jsonb and PGlite failed into a 400 naming nothing.
    it('refuses a lone surrogate in a config string with a 400 naming the field', async () => {
      const result = await post(
        '{"name":"A","version":{"config":{"tts":{"provider":"TTS_PROVIDER_1","model":"TTS_MODEL_1A","voiceId":"v\\ud800"}}}}',
      );
      expect(result.statusCode).toBe(400);
      expect(pathsOf(result.body)).toEqual(['version.config.tts.voiceId']);
    });

    it('refuses a lone surrogate in the name rather than storing something else', async () => {
      const result = await post('{"name":"a\\udfffb"}');
      expect(result.statusCode).toBe(400);
      expect(pathsOf(result.body)).toEqual(['name']);
    });

    it('names every unknown body member when one of them is __proto__', async () => {
      const result = await post('{"name":"Ada","x":1,"__proto__":{},"y":2}');
      expect(result.statusCode).toBe(400);
      expect(pathsOf(result.body)).toEqual(['x', '__proto__', 'y']);
    });

    // Valibot's strictObject reported the first unknown key only; DESIGN.md says "naming each".
    it('names every unknown body field, not only the first', async () => {
      const result = await post('{"name":"A","colour":"red","size":2}');
      expect(pathsOf(result.body).sort()).toEqual(['colour', 'size']);
    });

    // A recursive walk of the parsed body would overflow the stack on a body nested some 5,000
    // levels deep (10 KB, far under the 256 KiB cap): nesting is capped at 32 levels.
    it('answers a deeply nested body with a 400, never a 500', async () => {
      // Both depths stay under the 256 KiB cap (6 bytes a level at most), so 413 is no way out.
      for (const depth of [5_000, 40_000]) {
        for (const [open, close] of [
          ['[', ']'],
          ['{"a":', '}'],
        ] as const) {
          const result = await post(`${open.repeat(depth)}1${close.repeat(depth)}`);
          expect(result.statusCode, `${depth} × ${open}`).toBe(400);
        }
      }
    });
  });

  describe('a body of exactly 256 KiB, base64-encoded by API Gateway or not, is taken', () => {
    // A name far too long: a body that gets past the size check is refused by validation instead.
    const bodyOfBytes = (bytes: number) => `{"name":"${'x'.repeat(bytes - 11)}"}`;
    const base64Event = (body: string): ApiEvent =>
      Object.assign(apiEvent({ method: 'POST', path: '/agents', rawBody: body, caller: tenant }), {
        body: Buffer.from(body).toString('base64'),
        isBase64Encoded: true,
      });
    const tooLarge = {
      type: `${PROBLEMS}body-too-large`,
      title: 'Content Too Large',
      status: 413,
      detail: 'The request body exceeds 262144 bytes.',
    };

    it.each([262_142, 262_143, 262_144])('takes %i bytes, base64 or not, to validation', async (bytes) => {
      const body = bodyOfBytes(bytes);
      expect(Buffer.byteLength(body)).toBe(bytes);
      for (const result of [await post(body), await app.createAgent(base64Event(body))]) {
        expect(result.statusCode).toBe(400);
        expect(JSON.parse(result.body).errors).toEqual([
          { path: 'name', message: 'must be at most 255 characters' },
        ]);
      }
    });

    it.each([262_145, 262_146, 262_147])('refuses %i bytes, base64 or not, with 413', async (bytes) => {
      const body = bodyOfBytes(bytes);
      expectWholeProblem(await post(body), tooLarge);
      expectWholeProblem(await app.createAgent(base64Event(body)), tooLarge);
    });
  });

  describe('names made only of invisible characters, or holding a line separator, are refused', () => {
    const invisible = { path: 'name', message: 'must contain at least one visible character' };
    const separator = {
      path: 'name',
      message: 'must not contain line or paragraph separators (U+2028, U+2029)',
    };

    it.each([
      ['U+3164 HANGUL FILLER', '\u3164', invisible],
      ['U+200B ZERO WIDTH SPACE', '\u200b', invisible],
      ['U+FEFF, U+2060 and U+00AD', '\ufeff\u2060\u00ad', invisible],
      ['U+2028 LINE SEPARATOR', 'A\u2028B', separator],
      ['U+2029 PARAGRAPH SEPARATOR', 'A\u2029B', separator],
    ])('refuses an agent name of %s', async (_, name, error) => {
      expectWholeProblem(await post(JSON.stringify({ name })), validation('request body', [error]));
    });

    it('still takes a name with a visible character beside a zero-width joiner', async () => {
      const result = await post(JSON.stringify({ name: 'Agent\u200d\u{1F916}' }));
      expect(result.statusCode).toBe(201);
    });

    it('refuses such a workspace name in the admin commands', () => {
      for (const name of ['\u3164\u200b', 'A\u2028B']) {
        expect(v.safeParse(WorkspaceCreate, { command: 'workspace.create', name }).success).toBe(false);
      }
    });
  });

  describe('the query string', () => {
    // query.ts collected values in a plain object, where `__proto__` is not a key.
    it('refuses the unknown query parameter __proto__ like any other', async () => {
      const result = await listAgents('__proto__=1');
      expect(result.statusCode).toBe(400);
      expect(pathsOf(result.body)).toEqual(['__proto__']);
    });

    // A reserved name stopped the parse and was named alone: `x` went unmentioned.
    it('names every unknown query parameter when one of them is __proto__, constructor or prototype', async () => {
      const result = await listAgents('x=1&__proto__=1&constructor=2&y=3&prototype=4');
      expect(result.statusCode).toBe(400);
      expect(pathsOf(result.body)).toEqual(['x', '__proto__', 'constructor', 'y', 'prototype']);
    });

    // An empty name was reported as the whole body, `(root)`, or as ``.
    it('does not report an empty parameter name as (root) or as an empty path', async () => {
      for (const query of ['=x', '=x&=y']) {
        const result = await listAgents(query);
        expect(result.statusCode).toBe(400);
        for (const path of pathsOf(result.body)) expect(['(root)', '']).not.toContain(path);
      }
    });

    // The query schema was Valibot's strictObject, which stops at the first unknown key.
    it('names every unknown query parameter, not only the first', async () => {
      const result = await listAgents('colour=red&size=2');
      expect(pathsOf(result.body).sort()).toEqual(['colour', 'size']);
    });
  });

  describe('query values that are not UTF-8 are refused, never changed (to U+FFFD)', () => {
    it.each([
      ['q=%FF', 'q', listAgents],
      ['cursor=%C3%28', 'cursor', listAgents],
      ['status=COMPLETED&status=%FE', 'status', listSessions],
      ['agentId=abc,%80', 'agentId', listSessions],
    ])('refuses ?%s with a 400 naming %s', async (query, name, list) => {
      expectWholeProblem(
        await list(query),
        validation('query string', [{ path: name, message: 'must be UTF-8 text once percent-decoded' }]),
      );
    });

    it('names a parameter whose name is not UTF-8 by its encoded name (as API Gateway decoded it)', async () => {
      // Behind the REST API the function only sees U+FFFD where the bytes were: named encoded.
      expectWholeProblem(
        await listAgents('%FF=1'),
        validation('query string', [
          { path: '%EF%BF%BD', message: 'must be UTF-8 text once percent-decoded' },
        ]),
      );
    });

    it('still reads percent-encoded UTF-8, `+` as a space and a stray `%` as itself', async () => {
      const result = await listAgents(`q=${encodeURIComponent('é')}+%zz`);
      expect(result.statusCode).toBe(200);
      expect(JSON.parse(result.body)).toEqual([]);
    });
  });
});
