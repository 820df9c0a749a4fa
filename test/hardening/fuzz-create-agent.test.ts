import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '#contract/schemas/agent.ts';
import { llmModels } from '#contract/schemas/config.ts';
import type { Problem } from '#contract/schemas/problem.ts';
import type { DatabaseHandle } from '#db/client.ts';
import { silentLogger } from '#functions/http/log.ts';
import type { ApiResult } from '#functions/http/types.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { apiEvent } from '#test/helpers/events.ts';
import { createTenant, type Tenant } from '#test/helpers/tenants.ts';
import {
  type App,
  buildApp,
  checkAnswer,
  fuzzSeed,
  type RowCounts,
  rowCounts,
  runs,
  Tally,
} from './support/app.ts';
import {
  anyJson,
  anyText,
  applyMutation,
  dotPath,
  mutation,
  validCreateBody,
} from './support/arbitraries.ts';

/** Paths are related when one contains the other or they are siblings (a model names its provider's field). */
const parentOf = (path: string) => path.split('.').slice(0, -1).join('.');
const related = (error: string, aimed: string) =>
  error === aimed ||
  error === '(root)' ||
  aimed === '(root)' ||
  error.startsWith(`${aimed}.`) ||
  aimed.startsWith(`${error}.`) ||
  parentOf(error) === parentOf(aimed);

describe('fuzzing POST /agents at the handler', () => {
  let handle: DatabaseHandle;
  let app: App;
  let tenant: Tenant;
  const tallies: Tally[] = [];

  beforeAll(async () => {
    handle = await freshDatabase();
    app = buildApp({ database: handle, logger: silentLogger });
    tenant = await createTenant(handle.db);
  });
  afterAll(async () => {
    for (const tally of tallies) tally.report();
    await handle?.close();
  });
  const tally = (name: string) => {
    const t = new Tally(name);
    tallies.push(t);
    return t;
  };

  const post = (rawBody: string | undefined, headers: Record<string, string> = {}, caller = tenant) =>
    app.createAgent(apiEvent({ method: 'POST', path: '/agents', rawBody, headers, caller }));

  /** Agents and versions move together, and only by the creates that answered 201. */
  const expectWritten = (before: RowCounts, after: RowCounts, created: number) => {
    expect(after.agents - before.agents).toBe(created);
    expect(after.agent_versions - before.agent_versions).toBe(created);
  };

  it('accepts every valid body and stores exactly what was sent', async () => {
    const seen = tally('POST /agents, valid bodies');
    await fc.assert(
      fc.asyncProperty(validCreateBody, async (body) => {
        const before = await rowCounts(handle.db);
        const result = await post(JSON.stringify(body));
        const answer = checkAnswer('create-agent', result);
        seen.record(result.statusCode, body);
        if (result.statusCode === 409) {
          // A random slug already taken: the only refusal a valid body may get.
          expect((answer.body as Problem).errors?.map((e) => e.path)).toEqual(['slug']);
          expectWritten(before, await rowCounts(handle.db), 0);
          return;
        }
        expect(result.statusCode).toBe(201);
        const agent = answer.body as Agent;
        expect(agent.name).toBe((body.name as string).trim());
        expect(agent.description).toBe(body.description ?? null);
        if (body.slug) expect(agent.slug).toBe(body.slug);
        expect(agent.workspaceId).toBe(tenant.workspaceId);
        const version = body.version ?? {};
        expect(agent.version.systemPrompt).toBe(version.systemPrompt ?? null);
        expect(agent.version.knowledgeBaseId).toBe(version.knowledgeBaseId ?? null);
        expect(agent.version.inputMode).toEqual(version.inputMode ?? []);
        expect(agent.version.followUp).toBe(version.followUp ?? false);
        const config = version.config ?? null;
        const llm = config?.llm;
        expect(agent.version.config).toEqual(
          config && {
            ...config,
            ...(llm ? { llm: { ...llm, model: llm.model ?? llmModels[llm.provider][0] } } : {}),
          },
        );
        expectWritten(before, await rowCounts(handle.db), 1);
      }),
      { numRuns: runs(150), seed: fuzzSeed },
    );
  });

  it('answers near-valid bodies with a 201 or a 4xx naming the field that was broken, writing nothing when refusing', async () => {
    const seen = tally('POST /agents, near-valid mutations');
    await fc.assert(
      fc.asyncProperty(
        validCreateBody,
        fc.array(mutation, { minLength: 1, maxLength: 3 }),
        async (valid, mutations) => {
          const body = mutations.reduce<unknown>((b, m) => applyMutation(b, m), valid);
          const raw = JSON.stringify(body);
          const before = await rowCounts(handle.db);
          const result = await post(raw);
          seen.record(result.statusCode, raw);
          expect([201, 400, 409]).toContain(result.statusCode);
          const answer = checkAnswer('create-agent', result);
          const aimed = mutations.map(dotPath);
          for (const error of result.statusCode === 400 ? (answer.problem?.errors ?? []) : []) {
            expect(
              aimed.some((path) => related(error.path, path)),
              `${error.path} is named, but ${aimed.join(', ')} was broken`,
            ).toBe(true);
          }
          expectWritten(before, await rowCounts(handle.db), result.statusCode === 201 ? 1 : 0);
        },
      ),
      { numRuns: runs(600), seed: fuzzSeed },
    );
  });

  /** Bodies from nowhere near the schema: any JSON value, text that is not JSON, broken JSON. */
  const strangeBody = fc.oneof(
    { weight: 4, arbitrary: anyJson.map((value) => JSON.stringify(value) ?? '') },
    { weight: 2, arbitrary: fc.json({ maxDepth: 4 }) },
    { weight: 2, arbitrary: anyText },
    {
      weight: 2,
      arbitrary: fc
        .tuple(validCreateBody, fc.nat())
        .map(([b, cut]) => JSON.stringify(b).slice(0, cut % (JSON.stringify(b).length + 1))),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom('[', '{"a":', '{"name":['), fc.integer({ min: 1, max: 20_000 }))
        .map(([open, depth]) => open.repeat(depth)),
    },
    {
      weight: 1,
      // Balanced and valid, as deep as 256 KiB allows: a recursive reviver or validator would overflow.
      arbitrary: fc
        .tuple(
          fc.constantFrom(['[', ']'], ['{"a":', '}'], ['{"name":"A","version":', '}']),
          fc.integer({ min: 1, max: 100_000 }),
        )
        .map(
          ([[open, close], depth]) => `${(open as string).repeat(depth)}1${(close as string).repeat(depth)}`,
        ),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom('', ' ', '\ufeff{"name":"A"}', '{"name":"A"}\u0000', 'nul', '{"name":"A",}'),
    },
  );

  it('never answers a 5xx to random JSON or non-JSON, and writes nothing it refuses', async () => {
    const seen = tally('POST /agents, random and malformed bodies');
    const before = await rowCounts(handle.db);
    let created = 0;
    await fc.assert(
      fc.asyncProperty(strangeBody, async (raw) => {
        const result = await post(raw);
        seen.record(result.statusCode, raw);
        checkAnswer('create-agent', result);
        if (result.statusCode === 201) created++;
        expect([201, 400, 409, 413]).toContain(result.statusCode);
      }),
      { numRuns: runs(700), seed: fuzzSeed },
    );
    expectWritten(before, await rowCounts(handle.db), created);
  });

  it('reads the body only under Content-Type application/json (any case, at most charset=utf-8): 415 otherwise, before parsing', async () => {
    const seen = tally('POST /agents, Content-Type');
    const json = fc.constantFrom(
      'application/json',
      'Application/JSON',
      'application/json; charset=utf-8',
      'application/json;charset=UTF-8',
      ' application/json ',
      'application/json ; charset="utf-8"',
    );
    const other = fc.oneof(
      anyText,
      fc.constantFrom(
        'application/jsonx',
        'text/json',
        'text/plain',
        'application/json-patch+json',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/ json',
        'application/json,text/plain',
        'application/json ; x=y',
        'application/json; charset=latin1',
        '*/*',
      ),
    );
    const before = await rowCounts(handle.db);
    let created = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(json, other, fc.constant(undefined)),
        fc.oneof(
          validCreateBody.map((b) => JSON.stringify({ ...b, slug: undefined })),
          fc.constant('{"name":'),
        ),
        async (contentType, raw) => {
          const event = apiEvent({ method: 'POST', path: '/agents', rawBody: raw, caller: tenant });
          if (contentType === undefined) delete event.headers['content-type'];
          else event.headers['content-type'] = contentType;
          const result = await app.createAgent(event);
          checkAnswer('create-agent', result);
          seen.record(result.statusCode, contentType ?? '(none)');
          const isJson =
            contentType !== undefined &&
            /^\s*application\/json\s*(;\s*charset\s*=\s*("?)utf-8\2\s*)?$/i.test(contentType);
          if (!isJson) expect(result.statusCode).toBe(415);
          else expect(result.statusCode).toBe(raw === '{"name":' ? 400 : 201);
          if (result.statusCode === 201) created++;
        },
      ),
      { numRuns: runs(250), seed: fuzzSeed },
    );
    expectWritten(before, await rowCounts(handle.db), created);
  });

  it('keeps Idempotency-Key promises under random keys and repeats: one agent per key, replays byte for byte', async () => {
    const seen = tally('POST /agents, Idempotency-Key sequences');
    const malformedKey = fc.oneof(
      fc.constantFrom('', ' ', 'has space', 'x'.repeat(256), 'ünicode', 'tab\tkey', '\u007f'),
      anyText.filter((k) => !/^[\x21-\x7e]{1,255}$/.test(k)),
    );
    const wellFormedKey = fc.oneof(
      fc.constantFrom('k1', 'k2', 'x'.repeat(255)),
      fc.stringMatching(/^[\x21-\x7e]{1,40}$/),
    );
    const step = fc.record({
      key: fc.oneof({ weight: 4, arbitrary: wellFormedKey }, { weight: 1, arbitrary: malformedKey }),
      body: fc.constantFrom({ name: 'Alpha' }, { name: 'Beta', description: 'b' }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 6 }), async (steps) => {
        const caller = await createTenant(handle.db);
        const first = new Map<string, { body: string; result: ApiResult }>();
        let expectedAgents = 0;
        for (const { key, body } of steps) {
          const text = JSON.stringify(body);
          const result = await post(text, { 'idempotency-key': key }, caller);
          const answer = checkAnswer('create-agent', result);
          seen.record(result.statusCode, key);
          if (!/^[\x21-\x7e]{1,255}$/.test(key)) {
            expect(result.statusCode).toBe(400);
            expect(answer.problem?.errors?.map((e) => e.path)).toEqual(['Idempotency-Key']);
            continue;
          }
          const earlier = first.get(key);
          if (!earlier) {
            expect(result.statusCode).toBe(201);
            first.set(key, { body: text, result });
            expectedAgents++;
          } else if (earlier.body === text) {
            expect(result.statusCode).toBe(earlier.result.statusCode);
            expect(result.body).toBe(earlier.result.body);
            expect(result.headers['idempotent-replayed']).toBe('true');
          } else {
            expect(result.statusCode).toBe(422);
          }
        }
        const agents = await app.listAgents(apiEvent({ path: '/agents', query: 'limit=250', caller }));
        expect(JSON.parse(agents.body)).toHaveLength(expectedAgents);
      }),
      { numRuns: runs(120), seed: fuzzSeed },
    );
  });
});
