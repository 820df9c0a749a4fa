import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_TYPES_PATH, renderClientTypes } from '#client/generate.ts';
import {
  type AgentVersion,
  ApiProblem,
  createClient,
  type Session,
  type WebhookDelivery,
} from '#client/index.ts';
import { TRIAL_CREDIT } from '#contract/limits.ts';
import { tiers } from '#contract/tiers.ts';
import { type DatabaseHandle, openDatabase } from '#db/client.ts';
import { silentLogger } from '#functions/http/log.ts';
import { type Gateway, startGateway } from '#infra/local/gateway.ts';
import { createRateLimiter } from '#infra/local/rate-limit.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { insertAgent, insertSession } from '#test/helpers/fixtures.ts';
import { createTenant, type Tenant } from '#test/helpers/tenants.ts';

/** The typed client (client/) against the local gateway over real HTTP, on the test's database. */
describe('client/: the typed TypeScript client', () => {
  let database: DatabaseHandle;
  let gateway: Gateway;
  let tenant: Tenant;
  let readOnly: Tenant;
  let agentId: string;
  const SESSIONS = 7;

  beforeAll(async () => {
    database = await freshDatabase();
    tenant = await createTenant(database.db);
    readOnly = await createTenant(database.db, { scopes: ['agents:read'] });
    const agent = await insertAgent(database.db, tenant, { n: 1, versions: 2 });
    agentId = agent.agentId;
    for (let n = 1; n <= SESSIONS; n++)
      await insertSession(database.db, tenant, agent, {
        n,
        version: 1 + (n % 2),
        ledger: n % 3 === 0,
        status: n % 2 ? 'COMPLETED' : 'PENDING',
      });
    gateway = await startGateway({ deps: { database, logger: silentLogger } });
  });
  afterAll(async () => {
    await gateway.close();
    await database.close();
  });

  const client = (token = tenant.token) => createClient({ baseUrl: gateway.url, token });

  it('keeps client/api-types.ts what openapi-typescript generates from docs/openapi.json now', async () => {
    expect(readFileSync(CLIENT_TYPES_PATH, 'utf8')).toBe(await renderClientTypes());
  });

  it('creates an agent, and replays the same answer for the same idempotency key', async () => {
    const api = client();
    const first = await api.agents.create({ name: 'Front Desk' }, { idempotencyKey: 'client-1' });
    expect(first).toMatchObject({ name: 'Front Desk', slug: 'front-desk', status: 'DRAFT' });
    expect(first.version).toMatchObject({ version: 1 });
    const again = await api.agents.create({ name: 'Front Desk' }, { idempotencyKey: 'client-1' });
    expect(again).toEqual(first);
    const other = await api.agents.create({ name: 'Front Desk' });
    expect(other.slug).toBe('front-desk-2');
  });

  it('lists one page with the total when asked, and where the next page starts', async () => {
    const api = client();
    const byOffset = await api.sessions.list({ limit: 3, includeTotal: true });
    expect(byOffset.items).toHaveLength(3);
    expect(byOffset.total).toBe(SESSIONS);
    expect(byOffset.nextOffset).toBe(3);
    expect(byOffset.nextCursor).toBeUndefined();

    const byCursor = await api.sessions.list({ limit: 3, cursor: '' });
    expect(byCursor.total).toBeUndefined();
    expect(byCursor.nextCursor).toEqual(expect.any(String));
    const second = await api.sessions.list({ limit: 3, cursor: byCursor.nextCursor });
    expect(second.items.map((s) => s.id)).toEqual(
      (await api.sessions.list({ limit: 3, offset: 3 })).items.map((s) => s.id),
    );

    const last = await api.sessions.list({ limit: 3, offset: 6 });
    expect(last.items).toHaveLength(1);
    expect(last.nextOffset).toBeUndefined();
  });

  it('passes filters typed as the document says: lists, booleans, date-only bounds', async () => {
    const api = client();
    const pending = await api.sessions.list({ status: ['PENDING'], includeTotal: true });
    expect(pending.total).toBe(3);
    expect(pending.items.every((s) => s.status === 'PENDING')).toBe(true);
    const both = await api.sessions.list({ status: ['PENDING', 'COMPLETED'], includeTotal: true });
    expect(both.total).toBe(SESSIONS);
    const withLedger = await api.sessions.list({ hasLedger: true, agentId: [agentId], includeTotal: true });
    expect(withLedger.total).toBe(2);
    const none = await api.sessions.list({ createdAfter: '2099-01-01', includeTotal: true });
    expect(none).toEqual({ items: [], total: 0 });
    const agents = await api.agents.list({ status: ['DRAFT'], q: 'front', order: 'asc' });
    expect(agents.items.map((a) => a.slug)).toEqual(['front-desk', 'front-desk-2']);
  });

  it('iterates every item across pages by cursor (agents.all, sessions.all)', async () => {
    const api = client();
    const seen: Session[] = [];
    for await (const session of api.sessions.all({ limit: 2, order: 'asc' })) seen.push(session);
    expect(seen).toHaveLength(SESSIONS);
    expect(new Set(seen.map((s) => s.id)).size).toBe(SESSIONS);
    expect(seen.map((s) => s.createdAt)).toEqual([...seen.map((s) => s.createdAt)].sort());
    const slugs: string[] = [];
    for await (const agent of api.agents.all({ limit: 1 })) slugs.push(agent.slug);
    expect(slugs).toHaveLength(3);
  });

  it('reads versions (list, all, one), their diff as a JSON Patch, and one session', async () => {
    const api = client();
    const page = await api.versions.list(agentId, { limit: 1, includeTotal: true });
    expect(page).toMatchObject({ total: 2, nextOffset: 1 });
    expect(page.items.map((v) => v.version)).toEqual([2]);
    const all: number[] = [];
    for await (const version of api.versions.all(agentId, { limit: 1, order: 'asc' }))
      all.push(version.version);
    expect(all).toEqual([1, 2]);
    const [v2, v1] = (await api.versions.list(agentId)).items as [AgentVersion, AgentVersion];
    expect(await api.versions.get(agentId, v1.id)).toEqual(v1);
    expect(await api.versions.diff(agentId, v1.id, v2.id)).toEqual([
      { op: 'replace', path: '/systemPrompt', value: 'prompt v2' },
    ]);
    const [session] = (await api.sessions.list({ limit: 1 })).items as [Session];
    expect(await api.sessions.get(session.id)).toEqual(session);
    const missing = await api.sessions.get('zzzzzzzzzzzz').catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ApiProblem);
    expect((missing as ApiProblem).status).toBe(404);
    const otherAgents = await api.versions.get(agentId, 'zzzzzzzzzzzz').catch((e: unknown) => e);
    expect((otherAgents as ApiProblem).status).toBe(404);
  });

  it('throws a typed ApiProblem: validation (errors[] named), missing scope, API Gateway refusals', async () => {
    const problem = (await client()
      .sessions.list({ limit: 500 })
      .catch((e: unknown) => e)) as ApiProblem;
    expect(problem).toBeInstanceOf(ApiProblem);
    expect(problem).toMatchObject({ status: 400, title: 'Bad Request' });
    expect(problem.type).toMatch(/validation/);
    expect(problem.errors).toEqual([{ path: 'limit', message: expect.stringMatching(/250/) }]);
    expect(problem.requestId).not.toBe('');

    const created = (await client(readOnly.token)
      .agents.create({ name: 'Nope' })
      .catch((e: unknown) => e)) as ApiProblem;
    expect(created).toMatchObject({ status: 403 });
    expect(created.detail).toMatch(/agents:write/);

    const refused = (await client(`vak_${'x'.repeat(43)}`)
      .agents.list()
      .catch((e: unknown) => e)) as ApiProblem;
    expect(refused).toBeInstanceOf(ApiProblem);
    expect(refused).toMatchObject({ status: 403, title: 'Forbidden', errors: [] });

    const bad = (await client()
      .agents.create({ name: 'Bad', colour: 'red' } as never)
      .catch((e: unknown) => e)) as ApiProblem;
    expect(bad.status).toBe(400);
    expect(bad.errors.map((e) => e.path)).toContain('colour');
  });

  describe('retries', () => {
    let down: DatabaseHandle;
    let outage: Gateway;
    let flaky: Server;
    let flakyUrl: string;
    /** What the flaky front does to the next requests, in order; then it forwards to the gateway. */
    const script: ('429' | 'lose-answer')[] = [];
    let forwarded = 0;

    beforeAll(async () => {
      down = await openDatabase({ kind: 'postgres', url: 'postgres://nobody@127.0.0.1:1/none' });
      outage = await startGateway({ deps: { database: down, logger: silentLogger } });
      // In front of the gateway: answers 429 itself, or forwards and then loses the answer (503).
      flaky = createServer(async (req, res) => {
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        const step = script.shift();
        if (step === '429') {
          res.writeHead(429, { 'retry-after': '1', 'content-type': 'application/json' });
          res.end('{"message":"Too Many Requests"}');
          return;
        }
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(req.headers))
          if (typeof value === 'string' && !['host', 'connection', 'content-length'].includes(name))
            headers[name] = value;
        forwarded++;
        const answer = await fetch(`${gateway.url}${req.url}`, {
          method: req.method,
          headers,
          body: chunks.length ? Buffer.concat(chunks) : undefined,
        });
        const body = Buffer.from(await answer.arrayBuffer());
        if (step === 'lose-answer') {
          res.writeHead(503, { 'retry-after': '0', 'content-type': 'application/json' });
          res.end('{"message":"Service Unavailable"}');
          return;
        }
        const out: Record<string, string> = {};
        answer.headers.forEach((value, name) => {
          if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(name))
            out[name] = value;
        });
        res.writeHead(answer.status, out).end(body);
      });
      await new Promise<void>((done) => flaky.listen(0, '127.0.0.1', done));
      flakyUrl = `http://127.0.0.1:${(flaky.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      await new Promise((done) => flaky.close(done));
      await outage.close();
      await down.close();
    });

    it('retries a 503 after the Retry-After the API gives, then throws the problem', async () => {
      const waits: number[] = [];
      let attempts = 0;
      const api = createClient({
        baseUrl: outage.url,
        token: tenant.token,
        retry: { retries: 2, sleep: async (ms) => void waits.push(ms) },
        fetch: (input) => {
          attempts++;
          return fetch(input);
        },
      });
      const problem = (await api.sessions.list().catch((e: unknown) => e)) as ApiProblem;
      expect(problem).toBeInstanceOf(ApiProblem);
      expect(problem).toMatchObject({ status: 503, retryAfter: 5 });
      expect(attempts).toBe(3);
      expect(waits).toEqual([5000, 5000]);
    });

    it('retries a 429 after its Retry-After and returns the page', async () => {
      const waits: number[] = [];
      const api = createClient({
        baseUrl: flakyUrl,
        token: tenant.token,
        retry: { sleep: async (ms) => void waits.push(ms) },
      });
      script.push('429', '429');
      const page = await api.agents.list({ includeTotal: true });
      expect(page.total).toBeGreaterThan(0);
      expect(waits).toEqual([1000, 1000]);
    });

    it('retries a create whose answer was lost with the key it generated: one agent, not two', async () => {
      const api = createClient({ baseUrl: flakyUrl, token: tenant.token, retry: { sleep: async () => {} } });
      const before = forwarded;
      script.push('lose-answer');
      const agent = await api.agents.create({ name: 'Lost Answer' });
      expect(forwarded - before).toBe(2); // the first went through; its answer was lost
      const all = await client().agents.list({ q: 'Lost Answer', includeTotal: true });
      expect(all.total).toBe(1);
      expect(all.items[0]?.id).toBe(agent.id);
    });

    it("retries the gateway's own 429 (a workspace over its tier) after its Retry-After", async () => {
      // A slow free tier (a token every 2 s), so no token comes back between spending and asking.
      const slow = { ...tiers, free: { rate: 0.5, burst: 3, dailyQuota: 1_000 } };
      const limited = await startGateway({
        deps: { database, logger: silentLogger },
        limits: createRateLimiter({ tiers: slow }),
      });
      try {
        const free = await createTenant(database.db, { name: 'Free' });
        await database.db.execute(sql`update workspaces set tier = 'free' where id = ${free.workspaceId}`);
        const spend = () =>
          Promise.all(
            Array.from({ length: slow.free.burst }, () =>
              fetch(`${limited.url}/agents`, { headers: { authorization: `Bearer ${free.token}` } }).then(
                (r) => r.body?.cancel(),
              ),
            ),
          );
        await spend();
        const once = createClient({ baseUrl: limited.url, token: free.token, retry: { retries: 0 } });
        const problem = (await once.agents.list().catch((e: unknown) => e)) as ApiProblem;
        expect(problem).toBeInstanceOf(ApiProblem);
        expect(problem).toMatchObject({
          status: 429,
          type: 'https://voice-agent-admin.dev/problems/rate-limited',
          retryAfter: 2,
        });
        await spend();
        const waits: number[] = [];
        const patient = createClient({
          baseUrl: limited.url,
          token: free.token,
          retry: {
            sleep: (ms) => {
              waits.push(ms);
              return new Promise((done) => setTimeout(done, ms));
            },
          },
        });
        const page = await patient.agents.list();
        expect(page.items).toEqual([]);
        expect(waits.length).toBeGreaterThanOrEqual(1);
        expect(waits.every((ms) => ms === 2000)).toBe(true);
      } finally {
        await limited.close();
      }
    });

    it('gives up after the configured retries (0: no retry)', async () => {
      const api = createClient({ baseUrl: flakyUrl, token: tenant.token, retry: { retries: 0 } });
      script.push('429');
      await expect(api.agents.list()).rejects.toMatchObject({ status: 429, retryAfter: 1 });
    });
  });
  it('reads and credits the ledger: credit (replayed by key), list, all, CSV, one entry, balance, usage', async () => {
    const payer = await createTenant(database.db, { scopes: ['usage:read', 'billing:write'] });
    const api = client(payer.token);
    const body = { amount: 40, reason: 'PURCHASE_REFILL' as const, reasonDetails: 'Invoice 9' };
    const credited = await api.ledger.credit(body, { idempotencyKey: 'client-credit' });
    expect(credited).toMatchObject({
      ...body,
      idempotencyKey: 'client-credit',
      workspaceId: payer.workspaceId,
    });
    expect(await api.ledger.credit(body, { idempotencyKey: 'client-credit' })).toEqual(credited);
    await api.ledger.credit({ amount: 2, reason: 'SUBSCRIPTION_REFILL' });

    const first = await api.ledger.list({ limit: 1, includeTotal: true });
    expect(first.total).toBe(3); // the trial credit and the two refills
    expect(first.nextOffset).toBe(1);
    const refills = await api.ledger.list({ reason: ['PURCHASE_REFILL', 'SUBSCRIPTION_REFILL'] });
    expect(refills.items.map((e) => e.amount)).toEqual([2, 40]);
    const all: number[] = [];
    for await (const entry of api.ledger.all({ limit: 1 })) all.push(entry.amount);
    expect(all).toEqual([2, 40, TRIAL_CREDIT]);
    const csv = await api.ledger.csv({ reason: ['PURCHASE_REFILL'] });
    expect(csv.split('\r\n')[1]).toMatch(new RegExp(`^${credited.id},.*,40,PURCHASE_REFILL,Invoice 9,`));
    expect(await api.ledger.get(credited.id)).toEqual(credited);

    const balance = await api.ledger.balance();
    expect(balance).toMatchObject({ workspaceId: payer.workspaceId, balance: TRIAL_CREDIT + 42 });
    const today = new Date().toISOString().slice(0, 10);
    const usage = await api.ledger.usage({ from: today, to: today, groupBy: 'reason' });
    expect(usage.total).toEqual({ amount: TRIAL_CREDIT + 42, entries: 3, sessions: 0, voiceSeconds: 0 });

    const unknown = await api.ledger.get('zzzzzzzzzzzzzzzzzzzzzzzz').catch((e: unknown) => e);
    expect(unknown).toMatchObject({ status: 404 });
    const bad = await api.ledger.usage({ from: today, to: '2000-01-01' }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(ApiProblem);
    expect(bad).toMatchObject({ status: 400, errors: [{ path: 'to' }] });
  });

  it('runs a session through the write path: create, start, heartbeat, complete; problems thrown', async () => {
    const runtime = await createTenant(database.db, { scopes: ['sessions:write'] });
    const agent = await insertAgent(database.db, runtime, { n: 9 });
    await database.db.execute(
      sql`update agents set published_version_id = ${agent.versionIds[0]} where id = ${agent.agentId}`,
    );
    const api = client(runtime.token);
    const body = { agentId: agent.agentId, type: 'INBOUND_CALL' as const, person: { phone: '+14155550199' } };
    const created = await api.sessions.create(body, { idempotencyKey: 'client-session' });
    expect(created).toMatchObject({ status: 'PENDING', agentVersionId: agent.versionIds[0] });
    expect(await api.sessions.create(body, { idempotencyKey: 'client-session' })).toEqual(created);
    expect((await api.sessions.start(created.id)).status).toBe('IN_PROGRESS');
    expect(Date.parse(await api.sessions.heartbeat(created.id))).not.toBeNaN();
    const done = await api.sessions.complete(created.id, { traceId: 'tr', usage: { amount: -12 } });
    expect(done).toMatchObject({
      status: 'COMPLETED',
      completedMeta: { traceId: 'tr' },
      ledger: { amount: -12 },
    });
    expect(await api.sessions.complete(created.id)).toEqual(done);
    const refused = await api.sessions.heartbeat(created.id).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApiProblem);
    expect(refused).toMatchObject({ status: 409 });
  });

  it('manages webhook endpoints and their deliveries; another workspace sees none of them', async () => {
    const owner = await createTenant(database.db, { scopes: ['webhooks:manage', 'agents:write'] });
    const api = client(owner.token);
    await api.agents.create({ name: 'Hooked' }); // an agent.created event in the feed, for recover
    const body = {
      url: 'https://hooks.example.com/voice',
      enabledEvents: ['agent.created' as const],
      metadata: { team: 'ops' },
    };
    const created = await api.webhooks.create(body, { idempotencyKey: 'client-hook' });
    expect(created.data).toMatchObject({ ...body, status: 'enabled', description: '', agentIds: null });
    expect(created.data.secret).toMatch(/^whsec_/);
    expect(created.etag).not.toBe('');
    const id = created.data.id;
    const replayed = await api.webhooks.create(body, { idempotencyKey: 'client-hook' });
    expect(replayed.data.id).toBe(id);
    expect(replayed.data.secret).toBeUndefined(); // shown once, never stored in clear
    const second = await api.webhooks.create({ url: 'https://hooks.example.com/two', enabledEvents: ['*'] });

    const first = await api.webhooks.list({ limit: 1, cursor: '' });
    expect(first.items.map((e) => e.id)).toEqual([second.data.id]);
    expect(first.nextCursor).toEqual(expect.any(String));
    const ids: string[] = [];
    for await (const endpoint of api.webhooks.all({ limit: 1 })) ids.push(endpoint.id);
    expect(ids).toEqual([second.data.id, id]);

    const { endpoint, etag } = await api.webhooks.get(id);
    const { secret: _, ...withoutSecret } = created.data;
    expect(endpoint).toEqual(withoutSecret);
    expect(etag).toBe(created.etag);
    const updated = await api.webhooks.update(
      id,
      { description: 'Ops', enabledEvents: ['agent.created', 'session.completed'] },
      { ifMatch: etag },
    );
    expect(updated.data).toMatchObject({
      description: 'Ops',
      enabledEvents: ['agent.created', 'session.completed'],
    });
    expect(updated.etag).not.toBe(etag);
    const stale = await api.webhooks.update(id, { description: 'Late' }, { ifMatch: etag }).catch((e) => e);
    expect(stale).toBeInstanceOf(ApiProblem);
    expect(stale).toMatchObject({ status: 412 });

    const rotated = await api.webhooks.rotateSecret(id, { gracePeriodSeconds: 60 });
    expect(rotated.data.secret).toMatch(/^whsec_/);
    expect(rotated.data.secret).not.toBe(created.data.secret);
    expect(rotated.data.previousSecretExpiresAt).toEqual(expect.any(String));

    const test = await api.webhooks.test(id, { eventType: 'session.completed' });
    expect(test).toMatchObject({
      endpointId: id,
      kind: 'test',
      eventType: 'session.completed',
      status: 'pending',
    });
    expect(await api.webhooks.recover(id, { since: '2020-01-01T00:00:00.000Z' })).toEqual({ queued: 1 });
    const page = await api.webhooks.deliveries(id, { includeTotal: true });
    expect(page.total).toBe(2);
    const recovered = await api.webhooks.deliveries(id, {
      eventType: ['agent.created'],
      status: ['pending'],
    });
    expect(recovered.items.map((d) => d.kind)).toEqual(['event']);
    const all: WebhookDelivery[] = [];
    for await (const delivery of api.webhooks.allDeliveries(id, { limit: 1, order: 'asc' }))
      all.push(delivery);
    expect(all.map((d) => d.id)).toEqual([test.id, recovered.items[0]?.id]);
    expect(await api.webhooks.delivery(test.id)).toEqual({ ...test, attempts: [] });
    const again = await api.webhooks.redeliver(test.id);
    expect(again).toMatchObject({ kind: 'redelivery', eventId: test.eventId, status: 'pending' });
    expect(again.id).not.toBe(test.id);

    // Another workspace's key, with the scope: every id of this one is a 404 problem, none changed.
    const other = client((await createTenant(database.db, { scopes: ['webhooks:manage'] })).token);
    const refusals = await Promise.all(
      [
        other.webhooks.get(id),
        other.webhooks.update(id, { description: 'Taken' }, { ifMatch: '*' }),
        other.webhooks.delete(id, { ifMatch: '*' }),
        other.webhooks.rotateSecret(id),
        other.webhooks.test(id),
        other.webhooks.recover(id, { since: '2020-01-01T00:00:00.000Z' }),
        other.webhooks.deliveries(id),
        other.webhooks.delivery(test.id),
        other.webhooks.redeliver(test.id),
      ].map((call) => (call as Promise<unknown>).catch((e: unknown) => e)),
    );
    for (const refusal of refusals) {
      expect(refusal).toBeInstanceOf(ApiProblem);
      expect(refusal).toMatchObject({ status: 404 });
    }
    expect(await other.webhooks.list({ includeTotal: true })).toEqual({ items: [], total: 0 });
    expect((await api.webhooks.deliveries(id, { includeTotal: true })).total).toBe(3);
    const scopeless = await client(readOnly.token)
      .webhooks.list()
      .catch((e: unknown) => e);
    expect(scopeless).toMatchObject({ status: 403, detail: expect.stringMatching(/webhooks:manage/) });

    const current = await api.webhooks.get(id);
    expect(current.endpoint.description).toBe('Ops');
    const staleDelete = await api.webhooks.delete(id, { ifMatch: etag }).catch((e: unknown) => e);
    expect(staleDelete).toMatchObject({ status: 412 });
    await api.webhooks.delete(id, { ifMatch: current.etag });
    expect(await api.webhooks.get(id).catch((e: unknown) => e)).toMatchObject({ status: 404 });
    expect(await api.webhooks.delivery(test.id).catch((e: unknown) => e)).toMatchObject({ status: 404 });
  });
});
