import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentListParams } from '#contract/schemas/list-queries.ts';
import type { QueryParam } from '#contract/schemas/query.ts';
import { sessionListParams } from '#contract/schemas/session-list-query.ts';
import type { DatabaseHandle } from '#db/client.ts';
import { encodeCursor } from '#functions/http/cursor.ts';
import { silentLogger } from '#functions/http/log.ts';
import { listRequest } from '#functions/http/pagination.ts';
import type { ApiHandler, ApiResult } from '#functions/http/types.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { apiEvent } from '#test/helpers/events.ts';
import { insertAgent, insertSession } from '#test/helpers/fixtures.ts';
import { createTenant, type Tenant } from '#test/helpers/tenants.ts';
import {
  type App,
  buildApp,
  checkAnswer,
  fuzzSeed,
  type RouteName,
  rowCounts,
  runs,
  Tally,
} from './support/app.ts';
import { anyText } from './support/arbitraries.ts';

/** Every id a workspace's rows carry, to tell whose rows an answer holds. */
interface Ids {
  agents: string[];
  versions: string[];
  sessions: string[];
  persons: string[];
  conversations: string[];
}

/** Two workspaces with agents and sessions, so every filter can name the other workspace's rows. */
async function populate(handle: DatabaseHandle, tenant: Tenant): Promise<Ids> {
  const ids: Ids = { agents: [], versions: [], sessions: [], persons: [], conversations: [] };
  for (let n = 1; n <= 4; n++) {
    const agent = await insertAgent(handle.db, tenant, { n, versions: 2 });
    ids.agents.push(agent.agentId);
    ids.versions.push(...agent.versionIds);
    for (let s = 1; s <= 2; s++) {
      const session = await insertSession(handle.db, tenant, agent, {
        n: n * 10 + s,
        version: s,
        ledger: s === 1,
      });
      ids.sessions.push(session.sessionId);
      ids.persons.push(session.personId);
      ids.conversations.push(session.conversationId);
    }
  }
  return ids;
}

const routeParams: Record<'list-agents' | 'list-sessions', Record<string, QueryParam>> = {
  'list-agents': agentListParams,
  'list-sessions': sessionListParams,
};

describe('fuzzing the list query strings at the handler', () => {
  let handle: DatabaseHandle;
  let app: App;
  let ours: Tenant;
  let theirs: Tenant;
  let ourIds: Ids;
  let theirIds: Ids;
  const realCursors: string[] = [];
  const tallies: Tally[] = [];

  beforeAll(async () => {
    handle = await freshDatabase();
    app = buildApp({ database: handle, logger: silentLogger });
    ours = await createTenant(handle.db);
    theirs = await createTenant(handle.db);
    ourIds = await populate(handle, ours);
    theirIds = await populate(handle, theirs);
    // Cursors the API itself issued, to ours and to the other workspace.
    for (const [caller, path] of [
      [ours, '/agents'],
      [ours, '/sessions'],
      [theirs, '/sessions'],
    ] as const) {
      const handler = path === '/agents' ? app.listAgents : app.listSessions;
      const page = await handler(apiEvent({ path, query: 'limit=2&cursor=', caller }));
      const cursor = /[?&]cursor=([^&>]+)/.exec(page.headers.link ?? '')?.[1];
      if (cursor) realCursors.push(decodeURIComponent(cursor));
    }
  });
  afterAll(async () => {
    for (const tally of tallies) tally.report();
    await handle?.close();
  });

  /** A value each parameter might meet: valid ones, the other workspace's ids, and junk. */
  const valueFor = (name: string): fc.Arbitrary<string> => {
    const junk = fc.oneof(
      anyText,
      fc.constantFrom(
        '',
        '-1',
        '0',
        '1.5',
        '1e2',
        '+3',
        '0x10',
        '251',
        '99999999999999999999',
        ' 1',
        '١٢',
        'NaN',
      ),
      fc.string({ minLength: 2_000, maxLength: 20_000 }),
    );
    const ids = (list: (id: Ids) => string[]) =>
      fc
        .array(fc.constantFrom(...list(ourIds), ...list(theirIds), 'nosuchid', 'UPPER', 'a'.repeat(25)), {
          minLength: 1,
          maxLength: 60,
        })
        .map((xs) => xs.join(','));
    const instant = fc.oneof(
      fc
        .date({ min: new Date('1970-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
        .map((d) => d.toISOString()),
      fc.constantFrom(
        '2026-11-01',
        '2026-02-30',
        '0000-01-01',
        '9999-12-31T23:59-23:59',
        '2026-11-01T10:00+01:00',
        '2026-11-01T25:00Z',
      ),
    );
    const known: Record<string, fc.Arbitrary<string>> = {
      limit: fc.oneof(fc.integer({ min: 1, max: 250 }).map(String), fc.integer().map(String)),
      offset: fc.oneof(
        fc.nat({ max: 20 }).map(String),
        fc.integer().map(String),
        fc.constant('9007199254740992'),
      ),
      cursor: fc.oneof(
        fc.constantFrom('', ...realCursors),
        fc.string({ maxLength: 30 }),
        fc
          .tuple(
            fc.oneof(instant, anyText),
            fc.constantFrom(...ourIds.agents, ...theirIds.agents),
            fc.constantFrom('asc', 'desc'),
            fc.constantFrom('agents', 'sessions'),
          )
          .map(([createdAt, id, order, list]) =>
            // A cursor forged with the (public) checksum: it must still stay inside the caller's workspace.
            encodeCursor(
              { createdAt, id },
              listRequest({ limit: 25, order, cursor: '' }, list, ours.workspaceId).binding,
            ),
          ),
      ),
      order: fc.constantFrom('asc', 'desc', 'ASC', 'random'),
      includeTotal: fc.constantFrom('true', 'false', '1', ''),
      hasLedger: fc.constantFrom('true', 'false', 'yes'),
      agentId: ids((i) => i.agents),
      agentVersionId: ids((i) => i.versions),
      personId: ids((i) => i.persons),
      conversationId: ids((i) => i.conversations),
      status: fc
        .array(
          fc.constantFrom('PENDING', 'IN_PROGRESS', 'COMPLETED', 'DRAFT', 'ARCHIVED', 'PUBLISHED', 'done'),
          {
            maxLength: 4,
          },
        )
        .map((xs) => xs.join(',')),
      type: fc.constantFrom('INBOUND_CALL', 'WEB_VOICE', 'INBOUND_CALL,WEB_VOICE', 'FAX'),
      createdAfter: instant,
      createdBefore: instant,
      slug: fc.oneof(fc.constantFrom('agent-1', 'a'.repeat(256)), anyText),
      q: fc.oneof(fc.constantFrom('Agent', '%', '_', '\\', 'agent 1', "'"), anyText),
    };
    const own = Object.hasOwn(known, name) ? (known[name] as fc.Arbitrary<string>) : junk;
    return fc.oneof({ weight: 3, arbitrary: own }, { weight: 1, arbitrary: junk });
  };

  /** How a pair is written: encoded as a browser would, raw (so `&`, `=`, `#` split it), or broken escapes. */
  const pairText = (name: string, value: string, style: number) => {
    // URLSearchParams encodes lone surrogates (as U+FFFD) where encodeURIComponent throws.
    const encoded = new URLSearchParams([[name, value]]).toString();
    if (style === 0) return encoded;
    if (style === 1) return `${name}=${value}`;
    if (style === 2) return `${encoded.replace(/%2C/g, ',')}%`;
    return encoded.split('=')[0] ?? '';
  };

  const queryString = (route: 'list-agents' | 'list-sessions') => {
    const names = Object.keys(routeParams[route]);
    const unknown = fc.constantFrom(
      '__proto__',
      'constructor',
      'toString',
      'workspaceId',
      'LIMIT',
      'limit[]',
      'limit ',
      '',
      'naïve',
      'page',
      'q',
      'slug',
      'agentId',
    );
    const pair = fc
      .oneof({ weight: 5, arbitrary: fc.constantFrom(...names) }, { weight: 1, arbitrary: unknown })
      .chain((name) => fc.tuple(fc.constant(name), valueFor(name), fc.nat({ max: 9 })));
    return fc
      .array(pair, { maxLength: 6 })
      .map((pairs) => pairs.map(([n, v, style]) => pairText(n, v, style < 7 ? 0 : style - 6)).join('&'));
  };

  /** Whose rows an answer holds: every id in it must be ours. */
  const expectOnlyOurs = (body: unknown) => {
    const text = JSON.stringify(body);
    for (const id of [
      ...theirIds.agents,
      ...theirIds.sessions,
      ...theirIds.persons,
      ...theirIds.conversations,
    ]) {
      expect(text).not.toContain(id);
    }
    expect(text).not.toContain(theirs.workspaceId);
    for (const item of body as { workspaceId: string }[]) expect(item.workspaceId).toBe(ours.workspaceId);
  };

  async function fuzzList(
    route: 'list-agents' | 'list-sessions',
    handler: () => ApiHandler,
    numRuns: number,
  ) {
    const seen = new Tally(`GET ${route === 'list-agents' ? '/agents' : '/sessions'}, query strings`);
    tallies.push(seen);
    const params = routeParams[route];
    const path = route === 'list-agents' ? '/agents' : '/sessions';
    const before = await rowCounts(handle.db);
    await fc.assert(
      fc.asyncProperty(queryString(route), async (query) => {
        const result: ApiResult = await handler()(apiEvent({ path, query, caller: ours }));
        seen.record(result.statusCode, query);
        expect([200, 400]).toContain(result.statusCode);
        const judge = () => {
          const answer = checkAnswer(route as RouteName, result);
          const given = [...new URLSearchParams(query)].map(([name]) => name);
          // A name that is not UTF-8 once decoded (URLSearchParams and API Gateway make it U+FFFD)
          // is named percent-encoded, as decoded: its own bytes are lost.
          const utf8 = (name: string) => !name.includes('\uFFFD');
          const sent = given.filter((name) => !utf8(name)).map((name) => encodeURIComponent(name));
          if (result.statusCode === 200) {
            // Every parameter was one the route knows (an unknown one is refused, like a body field).
            for (const name of given)
              expect(Object.hasOwn(params, name), `unknown ${name} accepted`).toBe(true);
            expectOnlyOurs(answer.body);
            const total = result.headers['x-total-count'];
            if (total !== undefined) expect(Number(total)).toBeGreaterThanOrEqual((answer.body as []).length);
            return;
          }
          const named = (answer.problem?.errors ?? []).map((e) => e.path);
          expect(named.length, 'a 400 names at least one parameter').toBeGreaterThan(0);
          // A parameter without a name is refused first, on its own.
          if (given.includes('')) {
            expect(named).toEqual(['(unnamed)']);
            return;
          }
          // A parameter, or one item of a list parameter (`status.1`).
          for (const name of named) {
            expect(
              [...given, ...sent].some((g) => name === g || name.startsWith(`${g}.`)),
              `${name} is named but was not sent`,
            ).toBe(true);
          }
          const repeated = given.filter(
            (name, i) =>
              utf8(name) &&
              given.indexOf(name) !== i &&
              !(Object.hasOwn(params, name) && params[name]?.repeatable),
          );
          const unknown = given.filter((name) => utf8(name) && !Object.hasOwn(params, name));
          // Repeats are refused before anything else, then every unknown name, prototype names too.
          const expected = repeated.length > 0 ? repeated : unknown;
          for (const name of expected) expect(named).toContain(name);
        };
        judge();
        // A next page that is offered must be there to take, in the same workspace.
        const next = /^<https:\/\/api\.test(\/\w+)\?([^>]*)>; rel="next"$/.exec(result.headers.link ?? '');
        if (result.headers.link !== undefined) {
          expect(next, result.headers.link).not.toBeNull();
          const page = await handler()(
            apiEvent({ path: next?.[1] ?? path, query: next?.[2] ?? '', caller: ours }),
          );
          expect(page.statusCode).toBe(200);
          expectOnlyOurs(checkAnswer(route as RouteName, page).body);
        }
      }),
      { numRuns, seed: fuzzSeed },
    );
    // Reading never writes.
    const after = await rowCounts(handle.db);
    expect({ ...after, api_keys: 0 }).toEqual({ ...before, api_keys: 0 });
  }

  it('GET /agents answers any query string with 200 (our rows only) or a 400 naming the parameters', async () => {
    await fuzzList('list-agents', () => app.listAgents, runs(600));
  });

  it('GET /sessions answers any query string with 200 (our rows only) or a 400 naming the parameters', async () => {
    await fuzzList('list-sessions', () => app.listSessions, runs(600));
  });
});
