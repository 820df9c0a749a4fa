import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '#contract/openapi.ts';
import { type DatabaseHandle, openDatabase } from '#db/client.ts';
import { silentLogger } from '#functions/http/log.ts';
import { edgeAnswers } from '#infra/gateway-responses.ts';
import { type Gateway, startGateway } from '#infra/local/gateway.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { insertAgent, insertSession } from '#test/helpers/fixtures.ts';
import { createTenant, type Tenant } from '#test/helpers/tenants.ts';

/**
 * Real answers of the local gateway, checked against docs/openapi.json's schemas by an independent
 * JSON Schema validator (Ajv, not Valibot): every operation, every status the API can give.
 */
const doc = openApiDocument();
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema(doc as object, 'openapi.json');
const validators = new Map<string, ValidateFunction>();
const pointer = (...parts: string[]) =>
  parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

const checked = new Map<string, number>();

async function expectDocumented(res: Response, method: string, path: string) {
  const contentType = (res.headers.get('content-type') ?? '').split(';')[0] as string;
  const operation = (doc.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>)[
    path
  ]?.[method.toLowerCase()];
  const ref = operation
    ? `openapi.json#/${pointer('paths', path, method.toLowerCase(), 'responses', String(res.status), 'content', contentType, 'schema')}`
    : 'openapi.json#/components/schemas/Problem';
  if (operation) expect(Object.keys(operation.responses), `${method} ${path}`).toContain(String(res.status));
  let validate = validators.get(ref);
  if (!validate) {
    validate = ajv.compile({ $ref: ref });
    validators.set(ref, validate);
  }
  const body = await res.json();
  expect(validate(body), `${method} ${path} ${res.status}: ${ajv.errorsText(validate.errors)}`).toBe(true);
  const key = `${method} ${operation ? path : '(no route)'} ${res.status}`;
  checked.set(key, (checked.get(key) ?? 0) + 1);
}

describe('live responses match the OpenAPI document', () => {
  let database: DatabaseHandle;
  let gateway: Gateway;
  let tenant: Tenant;
  let readOnly: Tenant;

  beforeAll(async () => {
    database = await freshDatabase();
    tenant = await createTenant(database.db);
    readOnly = await createTenant(database.db, { scopes: ['agents:read'] });
    const agent = await insertAgent(database.db, tenant, { versions: 2 });
    for (let n = 1; n <= 4; n++)
      await insertSession(database.db, tenant, agent, { n, version: 1 + (n % 2), ledger: n > 2 });
    gateway = await startGateway({ deps: { database: database, logger: silentLogger } });
  });
  afterAll(async () => {
    await gateway.close();
    await database.close();
    // The closing note quotes these figures.
    console.info(
      `contract: ${[...checked.values()].reduce((a, b) => a + b, 0)} responses, ${checked.size} operation/status pairs`,
    );
  });

  const call = (
    method: string,
    path: string,
    init: { token?: string | null; body?: string; headers?: Record<string, string> } = {},
  ) => {
    const headers: Record<string, string> = { ...init.headers };
    const token = init.token === undefined ? tenant.token : init.token;
    if (token) headers.authorization = `Bearer ${token}`;
    return fetch(`${gateway.url}${path}`, { method, headers, body: init.body });
  };
  const json = (body: unknown, headers: Record<string, string> = {}) => ({
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...headers },
  });

  it('GET /sessions: 200 (pages, filters, cursors, totals), 400, 401, 403', async () => {
    for (const query of [
      '',
      '?limit=1',
      '?limit=2&offset=2',
      '?cursor=&limit=1',
      '?hasLedger=false&order=asc&includeTotal=true',
    ]) {
      const res = await call('GET', `/sessions${query}`);
      expect(res.status).toBe(200);
      await expectDocumented(res, 'GET', '/sessions');
    }
    for (const query of ['?limit=0', '?limit=1&limit=2', '?status=DONE', '?cursor=junk', '?nope=1']) {
      await expectDocumented(await call('GET', `/sessions${query}`), 'GET', '/sessions');
    }
    await expectDocumented(await call('GET', '/sessions', { token: null }), 'GET', '/sessions');
    await expectDocumented(
      await call('GET', '/sessions', { token: `vak_${'x'.repeat(43)}` }),
      'GET',
      '/sessions',
    );
    await expectDocumented(await call('GET', '/sessions', { token: readOnly.token }), 'GET', '/sessions');
  });

  it('POST /agents: 201, 400, 409, 413, 415, 422, 401, 403', async () => {
    const created = await call(
      'POST',
      '/agents',
      json({ name: 'Contract', slug: 'contract' }, { 'idempotency-key': 'k1' }),
    );
    expect(created.status).toBe(201);
    await expectDocumented(created, 'POST', '/agents');
    const replayed = await call(
      'POST',
      '/agents',
      json({ name: 'Contract', slug: 'contract' }, { 'idempotency-key': 'k1' }),
    );
    expect(replayed.status).toBe(201);
    await expectDocumented(replayed, 'POST', '/agents');
    const statuses: [number, RequestInit & { token?: string | null; headers?: Record<string, string> }][] = [
      [400, json({ name: '', colour: 'red' })],
      [400, { body: '{"name":', headers: { 'content-type': 'application/json' } }],
      [409, json({ name: 'Again', slug: 'contract' })],
      [413, json({ name: 'x'.repeat(300_000) })],
      [415, { body: 'name=x', headers: { 'content-type': 'text/plain' } }],
      [422, json({ name: 'Other body' }, { 'idempotency-key': 'k1' })],
      [401, { ...json({ name: 'A' }), token: null }],
      [403, { ...json({ name: 'A' }), token: readOnly.token }],
    ];
    for (const [status, init] of statuses) {
      const res = await call('POST', '/agents', init as never);
      expect(res.status).toBe(status);
      await expectDocumented(res, 'POST', '/agents');
    }
  });

  it('POST /sessions and POST /sessions/{sessionId}/start: 402 once the credit is gone', async () => {
    const broke = await createTenant(database.db, { scopes: ['sessions:write'] });
    const agent = await insertAgent(database.db, broke, { n: 1 });
    await database.db.execute(
      sql`update agents set published_version_id = ${agent.versionIds[0]} where id = ${agent.agentId}`,
    );
    const session = (key: string) =>
      call('POST', '/sessions', {
        token: broke.token,
        ...json(
          { agentId: agent.agentId, type: 'WEB_VOICE', person: { email: `${key}@example.com` } },
          { 'idempotency-key': key },
        ),
      });
    const waiting = await session('before');
    expect(waiting.status).toBe(201);
    const { id } = (await waiting.json()) as { id: string };
    // Spend the whole balance.
    await database.db.execute(sql`
      insert into ledger_entries (id, created_at, updated_at, workspace_id, amount, reason)
      select 'drain' || substr(${broke.workspaceId}, 1, 19), now(), now(), workspace_id, -balance, 'SMS_USAGE'
      from ledger_balances where workspace_id = ${broke.workspaceId}`);
    const refused = await session('after');
    expect(refused.status).toBe(402);
    await expectDocumented(refused, 'POST', '/sessions');
    const start = await call('POST', `/sessions/${id}/start`, { token: broke.token });
    expect(start.status).toBe(402);
    await expectDocumented(start, 'POST', '/sessions/{sessionId}/start');
  });

  it('the web ACL’s blocks (400, 401) on every route, as the document’s application/json answers', async () => {
    const edge = await startGateway({ deps: { database, logger: silentLogger }, waf: true });
    try {
      for (const [method, path, template] of [
        ['GET', '/agents', '/agents'],
        ['POST', '/sessions', '/sessions'],
        ['GET', '/balance', '/balance'],
      ] as const) {
        const none = await fetch(`${edge.url}${path}`, { method });
        expect(none.status).toBe(401);
        await expectDocumented(none, method, template);
        const twice = new Headers();
        twice.append('authorization', `Bearer ${tenant.token}`);
        twice.append('authorization', `Bearer ${tenant.token}`);
        const repeated = await fetch(`${edge.url}${path}`, { method, headers: twice });
        expect(repeated.status).toBe(400);
        await expectDocumented(repeated, method, template);
      }
    } finally {
      await edge.close();
    }
  });

  it('documents every answer of the web ACL (infra’s edgeAnswers) on every operation', () => {
    const validate = ajv.compile({ $ref: 'openapi.json#/components/schemas/EdgeProblem' });
    const operations = Object.values(
      doc.paths as Record<string, Record<string, { responses: object }>>,
    ).flatMap((path) => Object.values(path));
    for (const [rule, answer] of Object.entries(edgeAnswers)) {
      expect(validate(answer.body), `${rule}: ${ajv.errorsText(validate.errors)}`).toBe(true);
      for (const { responses } of operations) {
        const documented = (responses as Record<string, { content?: Record<string, unknown> }>)[
          String(answer.statusCode)
        ];
        expect(documented?.content?.['application/json'], rule).toBeDefined();
      }
    }
  });

  it('GET /agents: 200 and 400', async () => {
    for (const query of ['', '?q=contract&includeTotal=true', '?status=DRAFT&order=asc&cursor=']) {
      const res = await call('GET', `/agents${query}`);
      expect(res.status).toBe(200);
      await expectDocumented(res, 'GET', '/agents');
    }
    await expectDocumented(await call('GET', '/agents?offset=-1'), 'GET', '/agents');
  });

  it('the validator refuses what the document does not allow (so the checks above can fail)', () => {
    const validate = ajv.compile({ $ref: 'openapi.json#/components/schemas/Agent' });
    expect(validate({ id: 'abc' })).toBe(false);
    const problem = ajv.compile({ $ref: 'openapi.json#/components/schemas/Problem' });
    expect(problem({ type: 't', title: 't', status: 400, detail: 'd', requestId: 'r', stack: 'x' })).toBe(
      false,
    );
  });

  it('no route: 404', async () => {
    const res = await call('GET', '/persons');
    expect(res.status).toBe(404);
    await expectDocumented(res, 'GET', '/persons');
    expect((await call('DELETE', '/agents')).status).toBe(404);
  });

  it('database unreachable: 503 with Retry-After', async () => {
    const down = await openDatabase({ kind: 'postgres', url: 'postgres://nobody@127.0.0.1:1/none' });
    const outage = await startGateway({ deps: { database: down, logger: silentLogger } });
    try {
      const res = await fetch(`${outage.url}/sessions`, {
        headers: { authorization: `Bearer ${tenant.token}` },
      });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      await expectDocumented(res, 'GET', '/sessions');
    } finally {
      await outage.close();
      await down.close();
    }
  });

  it('an unexpected failure: 500 without details', async () => {
    const broken = await freshDatabase();
    const t = await createTenant(broken.db);
    // A real fault: the statement refers to a table that is gone.
    await broken.db.execute(sql`drop table ledger_entries`);
    const faulty = await startGateway({ deps: { database: broken, logger: silentLogger } });
    try {
      const res = await fetch(`${faulty.url}/sessions`, { headers: { authorization: `Bearer ${t.token}` } });
      expect(res.status).toBe(500);
      await expectDocumented(res, 'GET', '/sessions');
    } finally {
      await faulty.close();
      await broken.close();
    }
  });
});
