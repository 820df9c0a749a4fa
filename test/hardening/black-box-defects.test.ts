import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkspaceCreate } from '#contract/admin.ts';
import { SessionList } from '#contract/schemas/session.ts';
import type { DatabaseHandle } from '#db/client.ts';
import { silentLogger } from '#functions/http/log.ts';
import type { ApiEvent, ApiResult } from '#functions/http/types.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { apiEvent } from '#test/helpers/events.ts';
import { at, insertAgent, insertSession } from '#test/helpers/fixtures.ts';
import { bodyOf } from '#test/helpers/responses.ts';
import { createTenant, type Tenant } from '#test/helpers/tenants.ts';
import { type App, buildApp } from './support/app.ts';

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

/** Defects an outside black-box tester found (issue 27), each kept as a regression test. */
describe('defects the black-box tester found', () => {
  let handle: DatabaseHandle;
  let app: App;
  let tenant: Tenant;
  let onBoundary: string;

  beforeAll(async () => {
    handle = await freshDatabase();
    app = buildApp({ database: handle, logger: silentLogger });
    tenant = await createTenant(handle.db);
    // Created at 09:00:01.000 exactly (fixtures' `at(1)`): bounds half a millisecond either side.
    onBoundary = (await insertSession(handle.db, tenant, await insertAgent(handle.db, tenant), { n: 1 }))
      .sessionId;
  });
  afterAll(() => handle?.close());

  const post = (rawBody: string, headers: Record<string, string> = {}) =>
    app.createAgent(apiEvent({ method: 'POST', path: '/agents', rawBody, headers, caller: tenant }));
  const listSessions = (query: string) =>
    app.listSessions(apiEvent({ path: '/sessions', query, caller: tenant }));
  const listAgents = (query: string) => app.listAgents(apiEvent({ path: '/agents', query, caller: tenant }));

  describe('query values that are not UTF-8 were silently changed (to U+FFFD)', () => {
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

  describe('sub-millisecond createdBefore/createdAfter bounds were truncated to milliseconds', () => {
    const ids = async (query: string) =>
      bodyOf(SessionList, await listSessions(query)).map((session) => session.id);
    const boundary = at(1); // 2026-11-01T09:00:01.000Z
    const plus = boundary.replace('.000Z', '.0005Z');
    const minus = at(0).replace('.000Z', '.9995Z');

    it('includes a session created half a millisecond before createdBefore', async () => {
      expect(await ids(`createdBefore=${plus}`)).toEqual([onBoundary]);
    });
    it('excludes a session created half a millisecond after createdBefore', async () => {
      expect(await ids(`createdBefore=${minus}`)).toEqual([]);
    });
    it('includes a session created half a millisecond after createdAfter', async () => {
      expect(await ids(`createdAfter=${minus}`)).toEqual([onBoundary]);
    });
    it('excludes a session created half a millisecond before createdAfter', async () => {
      expect(await ids(`createdAfter=${plus}`)).toEqual([]);
    });
    it('compares nanosecond bounds and offsets exactly too', async () => {
      expect(await ids(`createdBefore=${encodeURIComponent('2026-11-01T10:00:01.000000001+01:00')}`)).toEqual(
        [onBoundary],
      );
      expect(await ids('createdBefore=2026-11-01T09:00:01.000000000Z')).toEqual([]);
    });
  });

  describe('a body of exactly 256 KiB was refused when API Gateway sent it base64-encoded', () => {
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

  describe("a replayed problem's requestId differed from its x-request-id header", () => {
    it('tells a replayed 409 with this request id in both, the rest unchanged', async () => {
      await post('{"name":"Taken","slug":"replayed-taken"}');
      const body = '{"name":"Other","slug":"replayed-taken"}';
      const first = await post(body, { 'idempotency-key': 'replayed-problem' });
      const again = await post(body, { 'idempotency-key': 'replayed-problem' });
      const { requestId: firstId, ...firstRest } = JSON.parse(first.body);
      expect(first.statusCode).toBe(409);
      expect(firstId).toBe(first.headers['x-request-id']);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
      expectWholeProblem(again, firstRest);
    });
  });

  describe('names made only of invisible characters, or holding a line separator, were accepted', () => {
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
});
