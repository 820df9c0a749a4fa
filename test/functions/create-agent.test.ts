import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Agent } from '#contract/schemas/agent.ts';
import type { DatabaseHandle } from '#db/client.ts';
import { rowsOf } from '#db/queries/rows.ts';
import { build } from '#functions/agents/create.ts';
import { build as buildList } from '#functions/agents/list.ts';
import { silentLogger } from '#functions/http/log.ts';
import type { ApiResult } from '#functions/http/types.ts';
import { type App, buildApp } from '#test/hardening/support/app.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { apiEvent } from '#test/helpers/events.ts';
import { bodyOf, expectProblem } from '#test/helpers/responses.ts';
import { createTenant, type Tenant } from '#test/helpers/tenants.ts';

describe('POST /agents', () => {
  let handle: DatabaseHandle;
  let createAgent: ReturnType<typeof build>;
  let tenant: Tenant;

  beforeAll(async () => {
    handle = await freshDatabase();
    createAgent = build({ database: handle, logger: silentLogger });
  });
  beforeEach(async () => {
    tenant = await createTenant(handle.db);
  });
  afterAll(() => handle.close());

  const post = (body: unknown, headers: Record<string, string> = {}, caller: Tenant = tenant) =>
    createAgent(apiEvent({ method: 'POST', path: '/agents', body, headers, caller }));
  const rowCount = async (table: 'agents' | 'agent_versions' | 'idempotency_keys') =>
    rowsOf<{ n: number }>(await handle.db.execute(sql.raw(`select count(*)::int as n from ${table}`)))[0]?.n;

  it('creates a DRAFT agent with version 1 and every default DESIGN.md fixes', async () => {
    const result = await post({ name: '  Front Desk  ' });
    expect(result.statusCode).toBe(201);
    const agent = bodyOf(Agent, result);
    expect(agent).toMatchObject({
      name: 'Front Desk',
      slug: 'front-desk',
      description: null,
      status: 'DRAFT',
      workspaceId: tenant.workspaceId,
      publishedVersionId: null,
      sourceTemplateId: null,
      createdBy: tenant.principalId,
      updatedBy: tenant.principalId,
      archivedAt: null,
      archivedBy: null,
      completedAt: null,
      completedBy: null,
      publishedAt: null,
      publishedBy: null,
    });
    expect(agent.version).toMatchObject({
      agentId: agent.id,
      version: 1,
      workspaceId: tenant.workspaceId,
      themeId: tenant.themeId,
      sourceAgentVersionId: null,
      incentiveType: 'NONE',
      incentiveAmount: null,
      incentiveCurrencyCode: null,
      maxParticipants: null,
      length: 'TEN_MINUTES',
      languages: ['en'],
      inputMode: [],
      knowledgeBaseId: null,
      followUp: false,
      limitToKnowledgeBase: null,
      timezone: null,
      authentication: 'NONE',
      systemPrompt: null,
      agentFlowId: null,
      config: null,
      createdBy: tenant.principalId,
    });
  });

  it('stores what the spec sample sends, filling in the llm model from its provider', async () => {
    const body = {
      name: 'Support line',
      description: 'Answers the support number',
      slug: 'support-line',
      version: {
        config: {
          llm: { provider: 'LLM_PROVIDER_2', temperature: 0.7 },
          tts: { provider: 'TTS_PROVIDER_1', model: 'TTS_MODEL_1A', voiceId: 'voice-42' },
          stt: { provider: 'STT_PROVIDER_2', model: 'STT_MODEL_2A' },
        },
        systemPrompt: 'You are helpful.',
        knowledgeBaseId: 'kb123',
        inputMode: [],
        followUp: true,
      },
    };
    const agent = bodyOf(Agent, await post(body));
    expect(agent.slug).toBe('support-line');
    expect(agent.description).toBe('Answers the support number');
    expect(agent.version).toMatchObject({
      systemPrompt: 'You are helpful.',
      knowledgeBaseId: 'kb123',
      followUp: true,
      inputMode: [],
      config: {
        llm: { provider: 'LLM_PROVIDER_2', model: 'LLM_MODEL_2A', temperature: 0.7 },
        tts: { provider: 'TTS_PROVIDER_1', model: 'TTS_MODEL_1A', voiceId: 'voice-42' },
        stt: { provider: 'STT_PROVIDER_2', model: 'STT_MODEL_2A' },
      },
    });
  });

  it('answers the agent exactly as GET /agents then lists it: the same fields, order and timestamps', async () => {
    // The create's answer is shaped in the function (fromRowJson), a list's items in Postgres.
    const created = await post({
      name: 'Same twice',
      description: 'Compared field by field',
      version: {
        config: { llm: { provider: 'LLM_PROVIDER_1', temperature: 0.25 } },
        systemPrompt: 'Be brief.',
        inputMode: ['WEB_VOICE', 'PHONE'],
        followUp: true,
      },
    });
    expect(created.statusCode).toBe(201);
    const answer = JSON.parse(created.body);
    const listed = await buildList({ database: handle, logger: silentLogger })(
      apiEvent({ path: '/agents', caller: tenant }),
    );
    const item = (JSON.parse(listed.body) as Array<{ id: string }>).find((a) => a.id === answer.id);
    expect(JSON.stringify(answer)).toBe(JSON.stringify(item));
    expect(answer.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it('derives unique slugs from the name within a workspace', async () => {
    const slugs = [];
    for (let i = 0; i < 3; i++) slugs.push(bodyOf(Agent, await post({ name: 'Café Bot!' })).slug);
    expect(slugs).toEqual(['cafe-bot', 'cafe-bot-2', 'cafe-bot-3']);
    expect(bodyOf(Agent, await post({ name: '!!!' })).slug).toBe('agent');
    const elsewhere = await createTenant(handle.db);
    expect(bodyOf(Agent, await post({ name: 'Café Bot' }, {}, elsewhere)).slug).toBe('cafe-bot');
  });

  it('answers 409 naming "slug" when a given slug is taken in the workspace, writing nothing', async () => {
    await post({ name: 'First', slug: 'taken' });
    const before = await rowCount('agents');
    expectProblem(await post({ name: 'Second', slug: 'taken' }), 409, ['slug']);
    expect(await rowCount('agents')).toBe(before);
    expect(await rowCount('agent_versions')).toBe(before);
  });

  it('gives exactly one 201 and fifteen 409s to 16 concurrent creates of one slug', async () => {
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, i) => post({ name: `Racer ${i}`, slug: 'race' })),
    );
    const statuses = results.map((r) => r.statusCode).sort();
    expect(statuses).toEqual([201, ...Array(15).fill(409)]);
    for (const r of results.filter((r) => r.statusCode === 409)) expectProblem(r, 409, ['slug']);
  });

  it('gives 16 concurrent creates of one name 16 distinct derived slugs', async () => {
    const results = await Promise.all(Array.from({ length: 16 }, () => post({ name: 'Same Name' })));
    expect(results.map((r) => r.statusCode)).toEqual(Array(16).fill(201));
    const slugs = new Set(results.map((r) => bodyOf(Agent, r).slug));
    expect(slugs.size).toBe(16);
  });

  it.each([
    ['a missing name', {}, ['name']],
    ['a blank name', { name: '   ' }, ['name']],
    ['a name of 256 characters', { name: 'x'.repeat(256) }, ['name']],
    ['a name that is not a string', { name: 42 }, ['name']],
    ['a description of 501 characters', { name: 'A', description: 'x'.repeat(501) }, ['description']],
    ['a slug with upper case', { name: 'A', slug: 'Bad-Slug' }, ['slug']],
    ['a slug with a double hyphen', { name: 'A', slug: 'a--b' }, ['slug']],
    ['an unknown top-level field', { name: 'A', colour: 'red' }, ['colour']],
    ['an unknown nested field', { name: 'A', version: { prompt: 'x' } }, ['version.prompt']],
    ['an unknown config field', { name: 'A', version: { config: { tts2: {} } } }, ['version.config.tts2']],
    [
      'a model from another provider',
      { name: 'A', version: { config: { llm: { provider: 'LLM_PROVIDER_1', model: 'LLM_MODEL_2A' } } } },
      ['version.config.llm.model'],
    ],
    [
      'an unknown provider',
      { name: 'A', version: { config: { llm: { provider: 'X' } } } },
      ['version.config.llm.provider'],
    ],
    [
      'a temperature above 2',
      { name: 'A', version: { config: { llm: { provider: 'LLM_PROVIDER_1', temperature: 2.5 } } } },
      ['version.config.llm.temperature'],
    ],
    [
      'an empty voiceId',
      {
        name: 'A',
        version: { config: { tts: { provider: 'TTS_PROVIDER_2', model: 'TTS_MODEL_2A', voiceId: '' } } },
      },
      ['version.config.tts.voiceId'],
    ],
    [
      'a tts without model',
      { name: 'A', version: { config: { tts: { provider: 'TTS_PROVIDER_2', voiceId: 'v' } } } },
      ['version.config.tts.model'],
    ],
    ['an unknown input mode', { name: 'A', version: { inputMode: ['FAX'] } }, ['version.inputMode.0']],
    ['a repeated input mode', { name: 'A', version: { inputMode: ['SMS', 'SMS'] } }, ['version.inputMode']],
    [
      'a knowledgeBaseId of 25 characters',
      { name: 'A', version: { knowledgeBaseId: 'k'.repeat(25) } },
      ['version.knowledgeBaseId'],
    ],
    ['followUp as a string', { name: 'A', version: { followUp: 'yes' } }, ['version.followUp']],
    ['a body that is an array', [], ['(root)']],
    ['a version that is an array', { name: 'A', version: [] }, ['version']],
    ['a config that is an array', { name: 'A', version: { config: [] } }, ['version.config']],
    ['a body that is null', null, ['(root)']],
    ['a NUL character in the name', { name: 'a\u0000b' }, ['name']],
    ['several faults at once', { name: '', slug: 'X', extra: 1 }, ['name', 'slug', 'extra']],
  ])('rejects %s with 400 naming the field, writing nothing', async (_, body, paths) => {
    const before = await rowCount('agents');
    expectProblem(await post(body), 400, paths);
    expect(await rowCount('agents')).toBe(before);
  });

  it('rejects malformed JSON with 400', async () => {
    const result = await createAgent(
      apiEvent({ method: 'POST', path: '/agents', rawBody: '{"name":', caller: tenant }),
    );
    expectProblem(result, 400);
  });

  it.each([['text/plain'], ['application/xml'], ['application/jsonx'], ['']])(
    'rejects Content-Type "%s" with 415',
    async (contentType) => {
      expectProblem(await post({ name: 'A' }, { 'content-type': contentType }), 415);
    },
  );

  it('accepts application/json with a charset parameter', async () => {
    expect(
      (await post({ name: 'Charset' }, { 'content-type': 'application/json; charset=utf-8' })).statusCode,
    ).toBe(201);
  });

  it('rejects a body over 256 KiB with 413 before parsing it', async () => {
    const result = await createAgent(
      apiEvent({
        method: 'POST',
        path: '/agents',
        rawBody: `{"name":"${'x'.repeat(256 * 1024)}"}`,
        caller: tenant,
      }),
    );
    expectProblem(result, 413);
  });

  it('requires the agents:write scope', async () => {
    const result = await createAgent(
      apiEvent({
        method: 'POST',
        path: '/agents',
        body: { name: 'A' },
        caller: tenant,
        scopes: 'agents:read',
      }),
    );
    expectProblem(result, 403);
  });

  describe('with an Idempotency-Key', () => {
    it('replays the first response byte for byte and creates one agent', async () => {
      const first = await post({ name: 'Once' }, { 'idempotency-key': 'key-1' });
      const again = await post({ name: 'Once' }, { 'idempotency-key': 'key-1' });
      expect(first.statusCode).toBe(201);
      expect(again.statusCode).toBe(201);
      expect(again.body).toBe(first.body);
      expect(again.headers['idempotent-replayed']).toBe('true');
      const count = rowsOf<{ n: number }>(
        await handle.db.execute(
          sql`select count(*)::int as n from agents where workspace_id = ${tenant.workspaceId}`,
        ),
      );
      expect(count[0]?.n).toBe(1);
    });

    it('treats the same body with keys in another order as the same request', async () => {
      const first = await post({ name: 'Ordered', slug: 'ordered' }, { 'idempotency-key': 'key-2' });
      const again = await post({ slug: 'ordered', name: 'Ordered' }, { 'idempotency-key': 'key-2' });
      expect(again.body).toBe(first.body);
    });

    it('treats a field left out and the same field sent with its default as the same request', async () => {
      const first = await post({ name: 'Defaulted' }, { 'idempotency-key': 'key-defaults' });
      const again = await post(
        { name: 'Defaulted', description: null, version: { inputMode: [], followUp: false } },
        { 'idempotency-key': 'key-defaults' },
      );
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toBe(first.body);
    });

    it('answers 422 when the key is reused with a different body', async () => {
      await post({ name: 'One' }, { 'idempotency-key': 'key-3' });
      expectProblem(await post({ name: 'Two' }, { 'idempotency-key': 'key-3' }), 422);
    });

    it('replays a slug conflict as the same 409', async () => {
      await post({ name: 'A', slug: 'dup' });
      const first = await post({ name: 'B', slug: 'dup' }, { 'idempotency-key': 'key-4' });
      const again = await post({ name: 'B', slug: 'dup' }, { 'idempotency-key': 'key-4' });
      expectProblem(first, 409, ['slug']);
      const { requestId: _, ...answer } = JSON.parse(first.body);
      // The same problem, told as this request's: its requestId is the one in its x-request-id.
      expect(expectProblem(again, 409, ['slug'])).toEqual({
        ...answer,
        requestId: again.headers['x-request-id'],
      });
    });

    it('refuses the header sent twice (two names or two values), creating nothing', async () => {
      const before = await rowCount('agents');
      const twice = (multi: Record<string, string[]>) => {
        const event = apiEvent({ method: 'POST', path: '/agents', body: { name: 'Twice' }, caller: tenant });
        Object.assign(event.multiValueHeaders, multi);
        event.headers['Idempotency-Key'] = 'key-b';
        return createAgent(event);
      };
      const sent: Record<string, string[]>[] = [
        { 'Idempotency-Key': ['key-a', 'key-b'] },
        { 'idempotency-key': ['key-a'], 'Idempotency-Key': ['key-b'] },
      ];
      for (const multi of sent) {
        const answer = await twice(multi);
        expectProblem(answer, 400, ['headers.idempotency-key']);
        expect(JSON.parse(answer.body).type).toMatch(/duplicate-header$/);
      }
      expect(await rowCount('agents')).toBe(before);
    });

    it('scopes keys to the workspace', async () => {
      const elsewhere = await createTenant(handle.db);
      const ours = await post({ name: 'Scoped' }, { 'idempotency-key': 'shared' });
      const theirs = await post({ name: 'Scoped' }, { 'idempotency-key': 'shared' }, elsewhere);
      expect(bodyOf(Agent, theirs).workspaceId).toBe(elsewhere.workspaceId);
      expect(bodyOf(Agent, theirs).id).not.toBe(bodyOf(Agent, ours).id);
    });

    it('gives two concurrent requests with one key one agent, never two', async () => {
      const results = await Promise.all([
        post({ name: 'Concurrent' }, { 'idempotency-key': 'key-5' }),
        post({ name: 'Concurrent' }, { 'idempotency-key': 'key-5' }),
      ]);
      const statuses = results.map((r) => r.statusCode).sort();
      expect([
        [201, 201],
        [201, 409],
      ]).toContainEqual(statuses);
      const count = rowsOf<{ n: number }>(
        await handle.db.execute(
          sql`select count(*)::int as n from agents where workspace_id = ${tenant.workspaceId}`,
        ),
      );
      expect(count[0]?.n).toBe(1);
    });

    it.each([[''], ['x'.repeat(256)], ['has space'], ['ünicode']])(
      'rejects the key %j with 400',
      async (key) => {
        expectProblem(await post({ name: 'A' }, { 'idempotency-key': key }), 400, ['Idempotency-Key']);
      },
    );
  });
});

describe('POST /agents: a replayed problem', () => {
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

  /** The whole answer of a problem: status, headers that matter, and every member of the body. */
  function expectWholeProblem(result: ApiResult, expected: Record<string, unknown>) {
    expect(result.statusCode).toBe(expected.status);
    expect(result.headers['content-type']).toBe('application/problem+json');
    expect(JSON.parse(result.body)).toEqual({ ...expected, requestId: result.headers['x-request-id'] });
  }

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
