import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPENAPI_PATH } from '#cli/openapi.ts';
import { type DatabaseHandle, openDatabase } from '#db/client.ts';
import { silentLogger } from '#functions/http/log.ts';
import { type Gateway, startGateway } from '#infra/local/gateway.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { insertAgent, insertSession } from '#test/helpers/fixtures.ts';
import { type Prism, startPrismProxy } from '#test/helpers/prism.ts';
import { createTenant, type Tenant } from '#test/helpers/tenants.ts';

/**
 * A third-party validating proxy (Stoplight Prism) in front of the local gateway: every answer of
 * every operation, success and error, must conform to docs/openapi.json; every request the API
 * accepts must conform too (the document may not be narrower than the API).
 */
interface Violation {
  location: string[];
  severity: string;
  message: string;
}

/** Three gateways behind one address, picked by a test-only header: healthy, database down, broken. */
function upstreamRouter(pick: (name: string | undefined) => string) {
  return createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers))
      if (value !== undefined && !['host', 'connection', 'x-upstream'].includes(name))
        headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    const answer = await fetch(`${pick(req.headers['x-upstream'] as string | undefined)}${req.url}`, {
      method: req.method,
      headers,
      body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
    });
    const out: Record<string, string> = {};
    answer.headers.forEach((value, name) => {
      if (!['content-encoding', 'transfer-encoding', 'connection', 'keep-alive'].includes(name))
        out[name] = value;
    });
    res.writeHead(answer.status, out).end(Buffer.from(await answer.arrayBuffer()));
  });
}

describe('Prism validating proxy in front of the local gateway', () => {
  let database: DatabaseHandle;
  let broken: DatabaseHandle;
  let down: DatabaseHandle;
  const gateways: Gateway[] = [];
  let router: Server;
  let prism: Prism;
  let tenant: Tenant;
  let readOnly: Tenant;
  let agentId: string;
  let versionIds: string[];
  let sessionId: string;
  const seen = new Map<string, number>();

  beforeAll(async () => {
    database = await freshDatabase();
    tenant = await createTenant(database.db);
    readOnly = await createTenant(database.db, { scopes: ['agents:read'] });
    const agent = await insertAgent(database.db, tenant, { versions: 2 });
    agentId = agent.agentId;
    versionIds = agent.versionIds;
    for (let n = 1; n <= 4; n++)
      sessionId = (
        await insertSession(database.db, tenant, agent, { n, version: 1 + (n % 2), ledger: n > 2 })
      ).sessionId;
    broken = await freshDatabase();
    await broken.db.execute(sql`drop table persons cascade`); // a real fault of GET /sessions (a workspace is still made): 500
    down = await openDatabase({ kind: 'postgres', url: 'postgres://nobody@127.0.0.1:1/none' }); // 503
    for (const handle of [database, down, broken])
      gateways.push(await startGateway({ deps: { database: handle, logger: silentLogger } }));
    const [healthy, outage, faulty] = gateways.map((g) => g.url) as [string, string, string];
    router = upstreamRouter((name) => (name === 'outage' ? outage : name === 'broken' ? faulty : healthy));
    await new Promise<void>((done) => router.listen(0, '127.0.0.1', done));
    prism = await startPrismProxy(OPENAPI_PATH, `http://127.0.0.1:${(router.address() as AddressInfo).port}`);
  }, 120_000);

  afterAll(async () => {
    await prism?.close();
    await new Promise((done) => router?.close(done));
    for (const gateway of gateways) await gateway.close();
    await database?.close();
    await broken?.close();
    await down?.close();
    console.info(
      `prism: ${[...seen.values()].reduce((a, b) => a + b, 0)} answers, ${seen.size} operation/status pairs, 0 violations`,
    );
  });

  /** One call through Prism: its status and the violations Prism found. */
  async function through(
    method: string,
    path: string,
    init: { token?: string | null; body?: string; headers?: Record<string, string>; upstream?: string } = {},
  ) {
    const headers: Record<string, string> = { ...init.headers };
    const token = init.token === undefined ? tenant.token : init.token;
    if (token) headers.authorization = `Bearer ${token}`;
    if (init.upstream) headers['x-upstream'] = init.upstream;
    const res = await fetch(`${prism.url}${path}`, { method, headers, body: init.body });
    await res.arrayBuffer();
    const header = res.headers.get('sl-violations');
    const violations: Violation[] = header ? JSON.parse(header) : [];
    const key = `${method} ${path.split('?')[0]} ${res.status}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
    return {
      status: res.status,
      request: violations.filter((v) => v.location[0] === 'request'),
      response: violations.filter((v) => v.location[0] !== 'request'),
    };
  }
  const json = (body: unknown, headers: Record<string, string> = {}) => ({
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...headers },
  });

  /** A request the API accepts: neither it nor its answer may break the document. */
  async function expectClean(method: string, path: string, status: number, init = {}) {
    const result = await through(method, path, init);
    expect(result.status, `${method} ${path}`).toBe(status);
    expect(result.request, `request ${method} ${path}`).toEqual([]);
    expect(result.response, `response ${method} ${path}`).toEqual([]);
  }

  /** A request the API refuses: the request may break the document, its answer may not. */
  async function expectAnswerClean(method: string, path: string, status: number, init = {}) {
    const result = await through(method, path, init);
    expect(result.status, `${method} ${path}`).toBe(status);
    expect(result.response, `response ${method} ${path}\n${prism.output().slice(-2000)}`).toEqual([]);
  }

  it('GET /sessions: pages, every filter form, totals, cursors', async () => {
    for (const query of [
      '',
      '?limit=1',
      '?limit=2&offset=2',
      '?cursor=&limit=1',
      '?order=asc&includeTotal=true',
      '?hasLedger=false&includeTotal=false',
      '?hasLedger=true',
      '?status=PENDING,COMPLETED',
      '?status=PENDING&status=COMPLETED,IN_PROGRESS',
      '?type=INBOUND_CALL&type=WEB_VOICE',
      `?agentId=${agentId}`,
      `?agentId=${agentId},abc123&personId=p1`,
      '?createdAfter=2020-01-01&createdBefore=2099-12-31',
      '?createdAfter=2026-11-01T09:00:01Z&createdBefore=2026-11-01T10:00:00.000%2B01:00',
    ])
      await expectClean('GET', `/sessions${query}`, 200);
  });

  it('GET /sessions: 400, 401, 403, 500, 503', async () => {
    for (const query of ['?limit=0', '?limit=1&limit=2', '?status=DONE', '?cursor=junk', '?nope=1'])
      await expectAnswerClean('GET', `/sessions${query}`, 400);
    await expectAnswerClean('GET', '/sessions', 401, { token: null });
    await expectAnswerClean('GET', '/sessions', 403, { token: `vak_${'x'.repeat(43)}` });
    await expectAnswerClean('GET', '/sessions', 403, { token: readOnly.token });
    await expectAnswerClean('GET', '/sessions', 503, { upstream: 'outage' });
  });

  it('GET /agents: 200 with every parameter, 400, 403', async () => {
    for (const query of [
      '',
      '?q=agent&includeTotal=true',
      '?status=DRAFT,PUBLISHED&order=asc&cursor=',
      '?status=DRAFT&status=ARCHIVED&limit=5&offset=1',
      '?slug=no-such-agent',
    ])
      await expectClean('GET', `/agents${query}`, 200, { token: readOnly.token });
    await expectAnswerClean('GET', '/agents?offset=-1', 400);
    await expectAnswerClean('GET', '/agents?cursor=&offset=1', 400);
    await expectAnswerClean('GET', '/agents', 401, { token: null });
  });

  it('POST /agents: 201 (and its replay), 400, 403, 409, 413, 415, 422', async () => {
    await expectClean(
      'POST',
      '/agents',
      201,
      json({ name: 'Prism', slug: 'prism' }, { 'idempotency-key': 'p1' }),
    );
    await expectClean(
      'POST',
      '/agents',
      201,
      json({ name: 'Prism', slug: 'prism' }, { 'idempotency-key': 'p1' }),
    );
    await expectClean(
      'POST',
      '/agents',
      201,
      json({
        name: 'Front Desk',
        description: 'Answers the main line',
        version: {
          config: {
            llm: { provider: 'LLM_PROVIDER_1', temperature: 0.4 },
            tts: { provider: 'TTS_PROVIDER_2', model: 'TTS_MODEL_2A', voiceId: 'v-1' },
            stt: { provider: 'STT_PROVIDER_1', model: 'STT_MODEL_1A' },
          },
          systemPrompt: 'You answer the phone.',
          inputMode: ['PHONE'],
          followUp: true,
        },
      }),
    );
    await expectAnswerClean('POST', '/agents', 400, json({ name: '', colour: 'red' }));
    await expectAnswerClean('POST', '/agents', 400, {
      body: '{"name":',
      headers: { 'content-type': 'application/json' },
    });
    await expectAnswerClean('POST', '/agents', 409, json({ name: 'Again', slug: 'prism' }));
    await expectAnswerClean('POST', '/agents', 413, json({ name: 'x'.repeat(300_000) }));
    await expectAnswerClean('POST', '/agents', 415, {
      body: 'name=x',
      headers: { 'content-type': 'text/plain' },
    });
    await expectAnswerClean('POST', '/agents', 422, json({ name: 'Other' }, { 'idempotency-key': 'p1' }));
    await expectAnswerClean('POST', '/agents', 401, { ...json({ name: 'A' }), token: null });
    await expectAnswerClean('POST', '/agents', 403, { ...json({ name: 'A' }), token: readOnly.token });
    await expectAnswerClean('POST', '/agents', 503, { ...json({ name: 'A' }), upstream: 'outage' });
  });

  it('the version reads and GET /sessions/{sessionId}: 200 (pages, cursors, the patch), 400, 403, 404', async () => {
    const [v1, v2] = versionIds as [string, string];
    for (const query of ['', '?limit=1&includeTotal=true', '?cursor=&order=asc', '?limit=1&offset=1'])
      await expectClean('GET', `/agents/${agentId}/versions${query}`, 200);
    await expectClean('GET', `/agents/${agentId}/versions/${v1}`, 200);
    await expectClean('GET', `/agents/${agentId}/versions/${v1}/diff/${v2}`, 200);
    await expectClean('GET', `/agents/${agentId}/versions/${v2}/diff/${v2}`, 200);
    await expectClean('GET', `/sessions/${sessionId}`, 200);
    await expectAnswerClean('GET', `/agents/${agentId}/versions?limit=0`, 400);
    await expectAnswerClean('GET', `/agents/${agentId}/versions/${v1}?x=1`, 400);
    await expectAnswerClean('GET', `/sessions/${sessionId}?x=1`, 400);
    await expectAnswerClean('GET', `/sessions/${sessionId}`, 403, { token: readOnly.token });
    await expectAnswerClean('GET', `/agents/${'z'.repeat(20)}/versions`, 404);
    await expectAnswerClean('GET', `/agents/${agentId}/versions/${'z'.repeat(20)}`, 404);
    await expectAnswerClean('GET', `/agents/${agentId}/versions/${v1}/diff/${'z'.repeat(20)}`, 404);
    await expectAnswerClean('GET', `/sessions/${'z'.repeat(20)}`, 404);
    await expectAnswerClean('GET', `/sessions/${sessionId}`, 503, { upstream: 'outage' });
  });

  it('an unexpected failure: 500', async () => {
    const t = await createTenant(broken.db);
    await expectAnswerClean('GET', '/sessions', 500, { token: t.token, upstream: 'broken' });
  });

  it('Prism does report a response that breaks the document (so the checks above can fail)', async () => {
    // The gateway's `{"message"}` is not a page of agents: answered where a 200 is documented.
    const fake = createServer((_, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"message":"not a list"}'),
    );
    await new Promise<void>((done) => fake.listen(0, '127.0.0.1', done));
    const liar = await startPrismProxy(
      OPENAPI_PATH,
      `http://127.0.0.1:${(fake.address() as AddressInfo).port}`,
    );
    try {
      const res = await fetch(`${liar.url}/agents`, { headers: { authorization: `Bearer ${tenant.token}` } });
      const violations: Violation[] = JSON.parse(res.headers.get('sl-violations') ?? '[]');
      expect(violations.some((v) => v.location[0] === 'response')).toBe(true);
    } finally {
      await liar.close();
      await new Promise((done) => fake.close(done));
    }
  }, 60_000);
});
