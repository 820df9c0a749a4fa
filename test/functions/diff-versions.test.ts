import { createId } from '@paralleldrive/cuid2';
import { and, eq } from 'drizzle-orm';
import fc from 'fast-check';
import jsonpatch from 'fast-json-patch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  authenticationMode,
  currencyCode,
  incentiveType,
  inputMode,
  language,
  sessionLength,
} from '#contract/enums.ts';
import { AgentVersion, VERSION_CONFIGURATION_FIELDS } from '#contract/schemas/agent.ts';
import { JsonPatch } from '#contract/schemas/json-patch.ts';
import type { DatabaseHandle } from '#db/client.ts';
import { agentVersions } from '#db/schema/index.ts';
import { silentLogger } from '#functions/http/log.ts';
import { build } from '#functions/versions/diff.ts';
import { build as buildGet } from '#functions/versions/get.ts';
import { fuzzSeed, runs } from '#test/hardening/support/app.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { apiEvent } from '#test/helpers/events.ts';
import { insertAgent } from '#test/helpers/fixtures.ts';
import { bodyOf, expectProblem } from '#test/helpers/responses.ts';
import { createTenant, type Tenant } from '#test/helpers/tenants.ts';

const RESOURCE = '/agents/{agentId}/versions/{versionId}/diff/{toVersionId}';
type Configuration = Record<(typeof VERSION_CONFIGURATION_FIELDS)[number], unknown>;

// JSON as jsonb keeps it (no NUL, no `__proto__` member), with keys that need JSON Pointer escaping.
const text = fc.string({ maxLength: 8 }).filter((s) => !s.includes('\u0000'));
const key = fc.oneof(
  fc.constantFrom('a', 'b', 'llm', 'a/b', '~', '~1', '/', '~0/', '', '0', '-', 'm~n'),
  text.filter((k) => k !== '__proto__'),
);
const leaf = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer({ min: -1000, max: 1000 }),
  fc.constantFrom(0.5, -2.25),
  text,
);
const { object: jsonObject } = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.dictionary(key, tie('value'), { maxKeys: 4, noNullPrototype: true }),
}));
const subset = <T>(values: readonly T[]) =>
  fc.uniqueArray(fc.constantFrom(...values), { maxLength: values.length });
/** A version's configuration fields as a row takes them (the theme stays the workspace's own). */
const configuration = fc.record({
  incentiveType: fc.constantFrom(...incentiveType),
  incentiveAmount: fc.option(fc.integer({ min: 100, max: 1_000_000 })),
  incentiveCurrencyCode: fc.option(fc.constantFrom(...currencyCode)),
  maxParticipants: fc.option(fc.integer({ min: 0, max: 50 })),
  length: fc.constantFrom(...sessionLength),
  languages: subset(language),
  inputMode: subset(inputMode),
  knowledgeBaseId: fc.option(fc.constantFrom('kb1', 'kb2')),
  followUp: fc.boolean(),
  limitToKnowledgeBase: fc.option(fc.boolean()),
  timezone: fc.option(fc.constantFrom('Europe/Paris', 'UTC')),
  authentication: fc.constantFrom(...authenticationMode),
  systemPrompt: fc.option(text),
  agentFlowId: fc.option(fc.constantFrom('flow1', 'flow2')),
  config: fc.option(jsonObject),
});

describe('GET /agents/{agentId}/versions/{versionId}/diff/{toVersionId}', () => {
  let handle: DatabaseHandle;
  let diffVersions: ReturnType<typeof build>;
  let getVersion: ReturnType<typeof buildGet>;
  let tenant: Tenant;
  let other: Tenant;
  let agent: { agentId: string; versionIds: string[] };
  let sibling: { agentId: string; versionIds: string[] };
  let theirs: { agentId: string; versionIds: string[] };
  let nextVersion = 10;

  beforeAll(async () => {
    handle = await freshDatabase();
    const deps = { database: handle, logger: silentLogger };
    diffVersions = build(deps);
    getVersion = buildGet(deps);
    tenant = await createTenant(handle.db);
    other = await createTenant(handle.db);
    agent = await insertAgent(handle.db, tenant, { n: 1, versions: 2 });
    sibling = await insertAgent(handle.db, tenant, { n: 2 });
    theirs = await insertAgent(handle.db, other, { n: 3, versions: 2 });
  });
  afterAll(() => handle.close());

  const diff = (
    agentId: string,
    versionId: string,
    toVersionId: string,
    init: { caller?: Tenant; query?: string; scopes?: string } = {},
  ) =>
    diffVersions(
      apiEvent({
        path: `/agents/${agentId}/versions/${versionId}/diff/${toVersionId}`,
        resource: RESOURCE,
        pathParameters: { agentId, versionId, toVersionId },
        caller: init.caller ?? tenant,
        query: init.query,
        scopes: init.scopes,
      }),
    );

  /** A new version of the agent with these configuration fields; its id. */
  async function insertVersion(fields: Partial<typeof agentVersions.$inferInsert>) {
    const id = createId();
    await handle.db.insert(agentVersions).values({
      id,
      agentId: agent.agentId,
      version: nextVersion++,
      workspaceId: tenant.workspaceId,
      themeId: tenant.themeId,
      ...fields,
    });
    return id;
  }

  /** A version's configuration read through Drizzle: what the patch must lead from and to. */
  async function configurationOf(id: string): Promise<Configuration> {
    const [row] = await handle.db
      .select()
      .from(agentVersions)
      .where(and(eq(agentVersions.id, id), eq(agentVersions.workspaceId, tenant.workspaceId)));
    if (!row) throw new Error(`no version ${id}`);
    return Object.fromEntries(VERSION_CONFIGURATION_FIELDS.map((f) => [f, row[f]])) as Configuration;
  }

  /** The patch from a to b, checked as answered; applied to a by another implementation, it must give b. */
  async function expectPatchLeads(from: string, to: string) {
    const result = await diff(agent.agentId, from, to);
    expect(result.statusCode).toBe(200);
    expect(result.headers).toMatchObject({
      'content-type': 'application/json-patch+json',
      'cache-control': 'no-store',
      'x-request-id': expect.any(String),
    });
    const patch = bodyOf(JsonPatch, result);
    const a = await configurationOf(from);
    const b = await configurationOf(to);
    const applied = jsonpatch.applyPatch(structuredClone(a), patch as jsonpatch.Operation[], true, false);
    expect(applied.newDocument).toEqual(b);
    return patch;
  }

  it('answers the operations turning one configuration into the other, on the fields it documents', async () => {
    const from = await insertVersion({
      systemPrompt: 'Hello',
      languages: ['en', 'fr'],
      inputMode: ['PHONE'],
      config: { llm: { provider: 'LLM_PROVIDER_1', model: 'LLM_MODEL_1A', temperature: 0.2 } },
    });
    const to = await insertVersion({
      systemPrompt: null,
      languages: ['fr'],
      inputMode: ['PHONE', 'SMS'],
      followUp: true,
      config: { llm: { provider: 'LLM_PROVIDER_1', model: 'LLM_MODEL_1A' }, 'a/b': { '~': null } },
    });
    const patch = await expectPatchLeads(from, to);
    const paths = patch.map((op) => op.path).sort();
    expect(paths).toEqual(
      [
        '/config/a~1b',
        '/config/llm/temperature',
        '/followUp',
        '/inputMode/-',
        '/languages/0',
        '/systemPrompt',
      ].sort(),
    );
    expect(patch).toContainEqual({ op: 'replace', path: '/systemPrompt', value: null });
    expect(patch).toContainEqual({ op: 'add', path: '/config/a~1b', value: { '~': null } });
    // Neither the ids, the numbers nor the audit fields are compared.
    expect(patch.some((op) => /^\/(id|version|createdAt|updatedAt|createdBy|agentId)$/.test(op.path))).toBe(
      false,
    );
  });

  it('patches the configuration exactly as GET …/versions/{versionId} shows it', async () => {
    const [v1, v2] = agent.versionIds as [string, string];
    const shown = bodyOf(
      AgentVersion,
      await getVersion(
        apiEvent({
          path: `/agents/${agent.agentId}/versions/${v1}`,
          resource: '/agents/{agentId}/versions/{versionId}',
          caller: tenant,
        }),
      ),
    );
    const a = Object.fromEntries(VERSION_CONFIGURATION_FIELDS.map((f) => [f, shown[f]]));
    expect(a).toEqual(await configurationOf(v1));
    expect(await expectPatchLeads(v1, v2)).toEqual([
      { op: 'replace', path: '/systemPrompt', value: 'prompt v2' },
    ]);
  });

  it('answers [] for a version against itself', async () => {
    const [v1] = agent.versionIds as [string];
    expect(await expectPatchLeads(v1, v1)).toEqual([]);
  });

  it('tells null from absent: a member set to null is added or removed, a null field replaced', async () => {
    const absent = await insertVersion({ config: { llm: {} } });
    const nullMember = await insertVersion({ config: { llm: { model: null } } });
    const nullConfig = await insertVersion({ config: null });
    expect(await expectPatchLeads(absent, nullMember)).toEqual([
      { op: 'add', path: '/config/llm/model', value: null },
    ]);
    expect(await expectPatchLeads(nullMember, absent)).toEqual([{ op: 'remove', path: '/config/llm/model' }]);
    expect(await expectPatchLeads(absent, nullConfig)).toEqual([
      { op: 'replace', path: '/config', value: null },
    ]);
    expect(await expectPatchLeads(nullConfig, absent)).toEqual([
      { op: 'replace', path: '/config', value: { llm: {} } },
    ]);
  });

  it('leads from a to b for generated configurations: arrays, nested objects, escaped keys, nulls', async () => {
    await fc.assert(
      fc.asyncProperty(configuration, configuration, async (a, b) => {
        await expectPatchLeads(await insertVersion(a), await insertVersion(b));
      }),
      { numRuns: runs(60), seed: fuzzSeed },
    );
  });

  it("404s an agent not the workspace's as no agent, a version not the agent's as no version", async () => {
    const [v1, v2] = agent.versionIds as [string, string];
    const [siblingVersion] = sibling.versionIds as [string];
    const [theirVersion] = theirs.versionIds as [string];
    const detail = (r: Awaited<ReturnType<typeof diff>>) => expectProblem(r, 404).detail;
    expect(detail(await diff(theirs.agentId, theirVersion, theirVersion))).toBe(
      'No agent with this id in this workspace.',
    );
    expect(detail(await diff('zzzzzzzzzz', v1, v2))).toBe('No agent with this id in this workspace.');
    expect(detail(await diff(agent.agentId, v1, siblingVersion))).toBe(
      'No version with this id in this workspace.',
    );
    expect(detail(await diff(agent.agentId, theirVersion, v1))).toBe(
      'No version with this id in this workspace.',
    );
    expect(detail(await diff(agent.agentId, v1, 'Not An Id'))).toBe(
      'No version with this id in this workspace.',
    );
    expect((await diff(theirs.agentId, theirVersion, theirVersion, { caller: other })).statusCode).toBe(200);
  });

  it('refuses a query parameter (400) and needs agents:read (403)', async () => {
    const [v1, v2] = agent.versionIds as [string, string];
    expectProblem(await diff(agent.agentId, v1, v2, { query: 'format=merge' }), 400, ['format']);
    expect(expectProblem(await diff(agent.agentId, v1, v2, { scopes: 'sessions:read' }), 403).detail).toMatch(
      /agents:read/,
    );
  });
});
