/**
 * What `npm run smoke` holds an API to, over real HTTP: the routes answer the spec's
 * shapes (checked with the contract's Valibot schemas), authentication and scopes are enforced,
 * pagination links work, bad input is a 400 problem, and (with writes) creation is idempotent.
 */
import { randomBytes } from 'node:crypto';
import { Agent, AgentList, AgentVersion, AgentVersionList } from '#contract/schemas/agent.ts';
import { AgentChangeList } from '#contract/schemas/agent-change.ts';
import { type Event, EventList } from '#contract/schemas/event.ts';
import { JsonPatch } from '#contract/schemas/json-patch.ts';
import { Session, SessionList } from '#contract/schemas/session.ts';
import {
  WebhookDelivery,
  WebhookDeliveryDetail,
  WebhookDeliveryList,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
} from '#contract/schemas/webhook.ts';
import { tiers } from '#contract/tiers.ts';
import { type Answer, type Check, expectStatus, fail, problemOf, Skip, shaped } from './smoke-answers.ts';
import { ledgerReads, ledgerWrites } from './smoke-ledger.ts';

export interface SmokeTarget {
  /** The API's base URL, ending in `/` (as the stack's ApiUrl output does). */
  base: URL;
  /**
   * A key with agents:read, sessions:read, events:read and usage:read (and agents:write,
   * agents:publish, sessions:write, billing:write, webhooks:manage when `write`); a check whose scope
   * it lacks is skipped.
   */
  token: string;
  write: boolean;
  /** Also flood the workspace past its tier and check the 429 (a standard workspace; not for prod). */
  limits?: boolean;
  /** A key of the same workspace without agents:read, or why there is none. */
  scopeless: { token: string } | { skip: string };
}

const REQUEST_TIMEOUT_MS = 20_000;

export function smokeChecks(target: SmokeTarget): Check[] {
  const stamp = new Date().toISOString();
  const created: string[] = [];
  const counts: { agents?: number; sessions?: number } = {};
  let listed: Agent | undefined;
  let firstSession: Session | undefined;
  let versions: AgentVersion[] | undefined;
  /** What this run changed, so the feed can be held to one event per change. */
  const changed: { sessionId?: string; published?: boolean; archived?: boolean } = {};

  async function request(
    path: string,
    init: { token?: string | null; method?: string; body?: unknown; headers?: Record<string, string> } = {},
  ) {
    const url = new URL(path, target.base);
    const headers: Record<string, string> = { ...init.headers };
    const token = init.token === undefined ? target.token : init.token;
    if (token !== null) headers.authorization = `Bearer ${token}`;
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(url, {
        method: init.method ?? 'GET',
        headers,
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      return fail(
        `${url.origin} did not answer: ${cause?.code ?? cause?.message ?? (error as Error).message}`,
      );
    }
    const text = await response.text();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    return { status: response.status, headers: response.headers, body, text } satisfies Answer;
  }

  const writes: Check[] = [
    {
      name: 'POST /agents creates an agent',
      run: async () => {
        const name = `Smoke ${stamp}`;
        const answer = await request('agents', { method: 'POST', body: { name } });
        expectStatus(answer, 201);
        const agent = shaped(Agent, answer, 'the agent');
        if (agent.name !== name) fail(`the agent is named "${agent.name}", not "${name}"`);
        created.push(agent.id);
        const location = answer.headers.get('location');
        if (!location?.endsWith(`/agents/${agent.id}`))
          fail(`Location is ${location}, not the new agent's URL`);
        return `201, agent ${agent.id}, version ${agent.version.version}, Location ${location}`;
      },
    },
    {
      name: 'POST /agents with an Idempotency-Key replays the same agent',
      run: async () => {
        const init = {
          method: 'POST',
          body: { name: `Smoke replay ${stamp}` },
          headers: { 'idempotency-key': `smoke-${randomBytes(8).toString('hex')}` },
        };
        const first = await request('agents', init);
        expectStatus(first, 201);
        const agent = shaped(Agent, first, 'the agent');
        created.push(agent.id);
        const again = await request('agents', init);
        expectStatus(again, 201);
        const replayed = shaped(Agent, again, 'the replayed agent');
        if (replayed.id !== agent.id) fail(`the replay created another agent (${replayed.id})`);
        if (again.headers.get('idempotent-replayed') !== 'true')
          fail('the replay lacks idempotent-replayed: true');
        return `201 twice, one agent ${agent.id}`;
      },
    },
    ...changeChecks(),
    {
      name: 'webhooks: an endpoint (its secret once), a test delivery logged, the endpoint deleted with If-Match',
      run: async () => {
        const made = await request('webhook-endpoints', {
          method: 'POST',
          body: { url: 'https://hooks.example.invalid/smoke', enabledEvents: ['agent.created'] },
        });
        if (made.status === 403) throw new Skip('the key lacks webhooks:manage');
        if (made.status === 503) throw new Skip('webhooks are not set up on this stage');
        expectStatus(made, 201);
        const endpoint = shaped(WebhookEndpointWithSecret, made, 'the endpoint');
        const read = await request(`webhook-endpoints/${endpoint.id}`);
        expectStatus(read, 200);
        if ('secret' in (shaped(WebhookEndpoint, read, 'the endpoint read back') as object))
          fail('the secret was answered again');
        const queued = await request(`webhook-endpoints/${endpoint.id}/test`, { method: 'POST', body: {} });
        expectStatus(queued, 202);
        const delivery = shaped(WebhookDelivery, queued, 'the test delivery');
        const listed = await request(`webhook-endpoints/${endpoint.id}/deliveries`);
        expectStatus(listed, 200);
        if (!shaped(WebhookDeliveryList, listed, 'the deliveries').some((d) => d.id === delivery.id))
          fail('the test delivery is not listed');
        const one = await request(`webhook-deliveries/${delivery.id}`);
        expectStatus(one, 200);
        shaped(WebhookDeliveryDetail, one, 'the delivery');
        const etag = read.headers.get('etag') ?? '';
        const gone = await request(`webhook-endpoints/${endpoint.id}`, {
          method: 'DELETE',
          headers: { 'if-match': etag },
        });
        expectStatus(gone, 204, ''); // no content, no content-type
        return `201 (secret once), 202 test delivery ${delivery.id}, 204 deleted`;
      },
    },
    {
      name: 'sessions: create, start, heartbeat, complete twice; the usage booked once',
      run: async () => {
        const agentId = created[0];
        if (!agentId) fail('needs the agent the first check creates');
        const agent = shaped(Agent, await request(`agents/${agentId}`), 'the agent');
        const answer = await request('sessions', {
          method: 'POST',
          // A named version: the smoke's agent is a draft, with none published.
          body: {
            agentId,
            agentVersionId: agent.version.id,
            type: 'WEB_VOICE',
            person: { email: 'smoke@example.com' },
          },
          headers: { 'idempotency-key': `smoke-${randomBytes(8).toString('hex')}` },
        });
        expectStatus(answer, 201);
        const session = shaped(Session, answer, 'the session');
        if (!answer.headers.get('location')?.endsWith(`/sessions/${session.id}`))
          fail(`Location is ${answer.headers.get('location')}, not the new session's URL`);
        const path = `sessions/${session.id}`;
        const started = await request(`${path}/start`, { method: 'POST' });
        expectStatus(started, 200);
        const beat = await request(`${path}/heartbeat`, { method: 'POST' });
        if (beat.status !== 204) fail(`the heartbeat answered ${beat.status}, not 204`);
        const complete = () =>
          request(`${path}/complete`, { method: 'POST', body: { usage: { amount: -1 } } });
        const [first, again] = [await complete(), await complete()];
        expectStatus(again, 200);
        const done = shaped(Session, first, 'the completed session');
        if (done.status !== 'COMPLETED' || done.ledger?.amount !== -1) fail('not completed with its usage');
        if (again.text !== first.text) fail('a repeated completion answered differently');
        changed.sessionId = session.id;
        return `session ${session.id}: 201, 200, 204, 200 twice with one ledger entry ${done.ledger.id}`;
      },
    },
    ...ledgerWrites(request),
  ];

  /** The changes to an agent, on the first one this run created (issue 25). */
  function changeChecks(): Check[] {
    const state: { agentId?: string; etag?: string; v1?: string; v2?: string } = {};
    const agentPath = (suffix = '') => {
      if (!state.agentId) fail('needs the agent POST /agents created');
      return `agents/${state.agentId}${suffix}`;
    };
    const etagOf = (answer: Answer) => answer.headers.get('etag') ?? fail('the answer has no ETag');
    /** A key without agents:publish cannot check what needs it: a skip, not a failure. */
    const publishing = async (path: string, init: Parameters<typeof request>[1]) => {
      const answer = await request(path, { method: 'POST', ...init });
      if (answer.status === 403 && /agents:publish/.test(answer.text))
        throw new Skip('the key lacks agents:publish');
      return answer;
    };
    return [
      {
        name: 'POST /agents/{agentId}/versions adds a draft version with If-Match (428 without, 412 stale)',
        run: async () => {
          state.agentId = created[0];
          const read = await request(agentPath());
          expectStatus(read, 200);
          const before = etagOf(read);
          state.v1 = shaped(Agent, read, 'the agent').version.id;
          problemOf(await request(agentPath('/versions'), { method: 'POST', body: {} }), 428);
          const init = {
            method: 'POST',
            body: { systemPrompt: `Smoke ${stamp}` },
            headers: { 'if-match': before },
          };
          const answer = await request(agentPath('/versions'), init);
          expectStatus(answer, 201);
          const version = shaped(AgentVersion, answer, 'the version');
          if (version.sourceAgentVersionId !== state.v1) fail('the version is not built from the latest');
          state.v2 = version.id;
          state.etag = etagOf(answer);
          if (state.etag === before) fail('the ETag did not change');
          problemOf(await request(agentPath('/versions'), init), 412);
          return `201 version ${version.version}, ETag ${state.etag}; 428 and 412 problems`;
        },
      },
      {
        name: 'PATCH /agents/{agentId} renames the agent (a merge patch with If-Match)',
        run: async () => {
          const name = `Smoke renamed ${stamp}`;
          const answer = await request(agentPath(), {
            method: 'PATCH',
            body: { name },
            headers: {
              'if-match': state.etag ?? fail('needs the new version'),
              'content-type': 'application/merge-patch+json',
            },
          });
          expectStatus(answer, 200);
          if (shaped(Agent, answer, 'the agent').name !== name) fail('the name did not change');
          state.etag = etagOf(answer);
          return `200, ETag ${state.etag}`;
        },
      },
      {
        name: 'POST /agents/{agentId}/publish publishes version 2, then rolls back to version 1',
        run: async () => {
          const published = await publishing(agentPath('/publish'), { body: { versionId: state.v2 } });
          expectStatus(published, 200);
          const agent = shaped(Agent, published, 'the agent');
          if (agent.status !== 'PUBLISHED' || agent.publishedVersionId !== state.v2)
            fail('version 2 is not published');
          const back = await publishing(agentPath('/publish'), {
            body: { versionId: state.v1 },
            headers: { 'if-match': etagOf(published) },
          });
          expectStatus(back, 200);
          if (shaped(Agent, back, 'the agent').publishedVersionId !== state.v1)
            fail('the rollback did not publish version 1');
          changed.published = true;
          return '200 PUBLISHED, then 200 rolled back';
        },
      },
      {
        name: 'POST /agents/{agentId}/archive archives (again: unchanged; no new version), /unarchive restores',
        run: async () => {
          const archived = await publishing(agentPath('/archive'), {});
          expectStatus(archived, 200);
          if (shaped(Agent, archived, 'the agent').status !== 'ARCHIVED') fail('the agent is not ARCHIVED');
          const again = await publishing(agentPath('/archive'), {});
          if (again.text !== archived.text) fail('archiving again changed the agent');
          const etag = etagOf(again);
          problemOf(
            await request(agentPath('/versions'), {
              method: 'POST',
              body: {},
              headers: { 'if-match': etag },
            }),
            409,
          );
          const restored = await publishing(agentPath('/unarchive'), {});
          expectStatus(restored, 200);
          const status = shaped(Agent, restored, 'the agent').status;
          if (status !== 'PUBLISHED') fail(`unarchived to ${status}, not PUBLISHED`);
          changed.archived = true;
          return '200 ARCHIVED twice, 409 for a new version, 200 PUBLISHED again';
        },
      },
    ];
  }

  const reads: Check[] = [
    {
      name: 'GET /agents answers a list of agents',
      run: async () => {
        const answer = await request('agents');
        expectStatus(answer, 200);
        const agents = shaped(AgentList, answer, 'the list');
        counts.agents = agents.length;
        listed = agents[0];
        const missing = created.filter((id) => !agents.some((a) => a.id === id));
        if (missing.length) fail(`the new agents ${missing.join(', ')} are not listed`);
        return `200, ${agents.length} agent(s) on the first page`;
      },
    },
    {
      name: 'GET /agents/{agentId} answers the listed agent with an ETag; an unknown id is a 404 problem',
      run: async () => {
        if (counts.agents === undefined) fail('the list itself did not answer');
        if (!listed) throw new Skip('needs an agent; the workspace has none');
        const answer = await request(`agents/${listed.id}`);
        expectStatus(answer, 200);
        const agent = shaped(Agent, answer, 'the agent');
        if (JSON.stringify(agent) !== JSON.stringify(listed)) fail('the agent differs from its list item');
        const etag = answer.headers.get('etag') ?? '';
        if (!etag.startsWith(`"${agent.id}.`)) fail(`the ETag "${etag}" is not the agent's`);
        // Same length and alphabet as a real id, so only its absence can make it a 404.
        const unknown = `z${randomBytes(12).toString('hex').slice(0, 23)}`;
        const problem = problemOf(await request(`agents/${unknown}`), 404);
        return `200 with ETag ${etag}; 404 ${problem.type}`;
      },
    },
    {
      name: "GET /agents/{agentId}/versions lists the agent's versions newest first; each reads back alone",
      run: async () => {
        if (counts.agents === undefined) fail('the list itself did not answer');
        if (!listed) throw new Skip('needs an agent; the workspace has none');
        const answer = await request(`agents/${listed.id}/versions?includeTotal=true`);
        expectStatus(answer, 200);
        versions = shaped(AgentVersionList, answer, 'the versions');
        const numbers = versions.map((v) => v.version);
        if (numbers.some((n, i) => i > 0 && n >= (numbers[i - 1] as number)))
          fail(`not newest first: ${numbers}`);
        if (JSON.stringify(versions[0]) !== JSON.stringify(listed.version))
          fail("the newest version differs from the agent's own");
        const oldest = versions.at(-1) as AgentVersion;
        const one = await request(`agents/${listed.id}/versions/${oldest.id}`);
        expectStatus(one, 200);
        if (JSON.stringify(shaped(AgentVersion, one, 'the version')) !== JSON.stringify(oldest))
          fail('the version differs from its list item');
        return `200, ${answer.headers.get('x-total-count')} version(s); version ${oldest.version} reads back`;
      },
    },
    {
      name: 'GET /agents/{agentId}/versions/{versionId}/diff/{toVersionId} answers a JSON Patch',
      run: async () => {
        if (counts.agents === undefined) fail('the list itself did not answer');
        if (!listed) throw new Skip('needs an agent; the workspace has none');
        if (!versions?.length) fail('the versions list did not answer');
        const from = versions.at(-1) as AgentVersion;
        const to = versions[0] as AgentVersion;
        const answer = await request(`agents/${listed.id}/versions/${from.id}/diff/${to.id}`);
        expectStatus(answer, 200, 'application/json-patch+json');
        const patch = shaped(JsonPatch, answer, 'the patch');
        const same = await request(`agents/${listed.id}/versions/${to.id}/diff/${to.id}`);
        expectStatus(same, 200, 'application/json-patch+json');
        if (same.text !== '[]') fail(`a version against itself is not [] but ${same.text.slice(0, 80)}`);
        return `200, ${patch.length} operation(s) from version ${from.version} to ${to.version}`;
      },
    },
    {
      name: "GET /agents/{agentId}/history answers the listed agent's changes; an unknown id is a 404 problem",
      run: async () => {
        if (!listed) throw new Skip('needs an agent; the workspace has none');
        const answer = await request(`agents/${listed.id}/history`);
        expectStatus(answer, 200);
        const entries = shaped(AgentChangeList, answer, 'the history');
        if (entries.some((e) => e.agentId !== listed?.id)) fail('an entry of another agent');
        const unknown = `z${randomBytes(12).toString('hex').slice(0, 23)}`;
        problemOf(await request(`agents/${unknown}/history`), 404);
        return `200, ${entries.length} change(s) on the first page; 404 for an unknown agent`;
      },
    },
    {
      name: 'GET /sessions answers a list of sessions',
      run: async () => {
        const answer = await request('sessions');
        expectStatus(answer, 200);
        const sessions = shaped(SessionList, answer, 'the list');
        counts.sessions = sessions.length;
        firstSession = sessions[0];
        return `200, ${sessions.length} session(s) on the first page`;
      },
    },
    {
      name: 'GET /sessions/{sessionId} answers the listed session (if any); an unknown id is a 404 problem',
      run: async () => {
        if (counts.sessions === undefined) fail('the list itself did not answer');
        // Same length and alphabet as a real id, so only its absence can make it a 404.
        const unknown = `z${randomBytes(12).toString('hex').slice(0, 23)}`;
        const problem = problemOf(await request(`sessions/${unknown}`), 404);
        // A workspace without sessions still checks the 404 (stages seed none).
        if (!firstSession) return `no session to read; 404 ${problem.type}`;
        const answer = await request(`sessions/${firstSession.id}`);
        expectStatus(answer, 200);
        const session = shaped(Session, answer, 'the session');
        if (JSON.stringify(session) !== JSON.stringify(firstSession))
          fail('the session differs from its list item');
        return `200; 404 ${problem.type}`;
      },
    },
    {
      name: 'pagination: Link rel="next" leads to the next page',
      run: async () => {
        const { agents, sessions } = counts;
        if (agents === undefined || sessions === undefined) fail('the lists themselves did not answer');
        const path = agents >= 2 ? 'agents' : sessions >= 2 ? 'sessions' : undefined;
        if (!path) throw new Skip('needs 2 agents or 2 sessions; the workspace has fewer');
        const schema = path === 'agents' ? AgentList : SessionList;
        const two = shaped(schema, await request(`${path}?limit=2`), 'the list');
        const first = await request(`${path}?limit=1`);
        expectStatus(first, 200);
        const link = /^<([^>]+)>;\s*rel="next"$/.exec(first.headers.get('link') ?? '')?.[1];
        if (!link)
          fail(`no Link rel="next" on a page of 1 of at least 2 (got "${first.headers.get('link')}")`);
        const next = new URL(link, target.base);
        if (next.origin !== target.base.origin) fail(`the Link points at another origin: ${next.origin}`);
        const page = shaped(schema, await request(next.href), 'the next page');
        if (page[0]?.id !== two[1]?.id) fail(`the next page starts with ${page[0]?.id}, not ${two[1]?.id}`);
        return `GET /${path}?limit=1, then its Link: the second item`;
      },
    },
    {
      name: 'GET /events pages the feed by cursor (with writes: one event for each change this run made)',
      run: async () => {
        let first = await request('events?limit=1');
        if (first.status === 403 && /events:read/.test(first.text))
          throw new Skip('the key lacks events:read');
        expectStatus(first, 200);
        // With writes the feed holds this run's events, but only once no older transaction still
        // runs anywhere on the server (the feed's settled horizon): wait a moment for two of them.
        const settleBy = Date.now() + 15_000;
        while (target.write && !first.headers.get('link') && Date.now() < settleBy) {
          await new Promise((done) => setTimeout(done, 250));
          first = await request('events?limit=1');
          expectStatus(first, 200);
        }
        const one = shaped(EventList, first, 'the feed');
        const next = first.headers.get('x-next-cursor') ?? fail('the answer has no X-Next-Cursor');
        const cursorProblem = problemOf(await request('events?cursor=not-a-cursor'), 400);
        if (!cursorProblem.errors?.some((e) => e.path === 'cursor')) fail('the 400 does not name "cursor"');
        let paging = 'an empty feed';
        if (one.length === 1 && first.headers.get('link')) {
          const two = shaped(EventList, await request('events?limit=2'), 'the feed');
          const link = /^<([^>]+)>;\s*rel="next"$/.exec(first.headers.get('link') ?? '')?.[1];
          if (!link) fail(`a malformed Link: "${first.headers.get('link')}"`);
          const page = shaped(EventList, await request(new URL(link, target.base).href), 'the next page');
          const byCursor = shaped(EventList, await request(`events?limit=1&cursor=${next}`), 'the next page');
          if (page[0]?.id !== two[1]?.id || byCursor[0]?.id !== two[1]?.id)
            fail(
              `the next page starts with ${page[0]?.id} (by cursor ${byCursor[0]?.id}), not ${two[1]?.id}`,
            );
          paging = 'Link and X-Next-Cursor both lead to the second event';
        } else if (one.length === 1) {
          paging = 'one event';
        }
        if (!target.write) return `200, ${paging}; 400 for a cursor it did not issue`;
        const mine = await runEvents();
        return `200, ${paging}; 400 for a bad cursor; ${mine}`;
      },
    },
  ];

  /**
   * This run's events, each change exactly once: the feed walked from its start (events of older
   * transactions still running appear a moment later, so it polls briefly for the last ones).
   */
  async function runEvents(): Promise<string> {
    const expected = new Map<string, number>();
    const want = (key: string, n = 1) => expected.set(key, n);
    for (const id of created) want(`agent.created ${id}`);
    const agentId = created[0];
    if (changed.published) want(`agent.published ${agentId}`, 2);
    if (changed.archived) {
      want(`agent.archived ${agentId}`);
      want(`agent.unarchived ${agentId}`);
    }
    if (changed.sessionId) {
      for (const type of ['session.created', 'session.started', 'session.completed', 'usage.booked'])
        want(`${type} ${changed.sessionId}`);
    }
    const keyOf = (e: Event) => {
      const data = e.data as { agentId?: string; sessionId?: string };
      return `${e.type} ${e.type.startsWith('agent.') ? data.agentId : data.sessionId}`;
    };
    const seen = new Map<string, string[]>();
    let cursor = '';
    const deadline = Date.now() + 15_000;
    for (let pages = 0; ; pages++) {
      const answer = await request(`events?limit=250&cursor=${cursor}`);
      expectStatus(answer, 200);
      for (const e of shaped(EventList, answer, 'the feed')) {
        const key = keyOf(e);
        if (expected.has(key)) seen.set(key, [...(seen.get(key) ?? []), e.id]);
      }
      cursor = answer.headers.get('x-next-cursor') ?? fail('the answer has no X-Next-Cursor');
      const complete = [...expected].every(([key, n]) => (seen.get(key)?.length ?? 0) >= n);
      if (answer.headers.get('link')) {
        if (pages > 200) throw new Skip('the feed holds more than 50,000 events: not walked to its end');
        continue;
      }
      if (complete || Date.now() > deadline) break;
      await new Promise((done) => setTimeout(done, 250));
    }
    for (const [key, n] of expected) {
      const ids = seen.get(key) ?? [];
      if (ids.length !== n) fail(`${ids.length} event(s) ${key}, not ${n}`);
      if (new Set(ids).size !== ids.length) fail(`an event ${key} twice`);
    }
    return `this run's ${[...expected.values()].reduce((a, b) => a + b, 0)} events, each once`;
  }

  reads.push(...ledgerReads(request, () => changed.sessionId));

  const guards: Check[] = [
    {
      name: 'no token: 401',
      run: async () => {
        const answer = await request('agents', { token: null });
        if (answer.status !== 401) fail(`expected 401, got ${answer.status}`);
        return '401';
      },
    },
    {
      name: 'unknown token: 403',
      run: async () => {
        const answer = await request('agents', { token: `vak_${randomBytes(32).toString('base64url')}` });
        if (answer.status !== 403) fail(`expected 403, got ${answer.status}`);
        return '403';
      },
    },
    {
      name: 'a key without agents:read: 403 problem on GET /agents',
      run: async () => {
        if ('skip' in target.scopeless) throw new Skip(target.scopeless.skip);
        const problem = problemOf(await request('agents', { token: target.scopeless.token }), 403);
        return `403 ${problem.type}`;
      },
    },
    {
      name: 'a bad request: 400 problem naming the parameter',
      run: async () => {
        const problem = problemOf(await request('sessions?limit=0'), 400);
        if (!problem.errors?.some((e) => e.path === 'limit')) fail('the problem does not name "limit"');
        return `400 ${problem.type}`;
      },
    },
  ];

  const { rate, burst } = tiers.standard;
  const limits: Check[] = [
    {
      name: 'limits: a burst past the standard tier is a 429 problem with Retry-After, then it recovers',
      run: async () => {
        // Waves of burst + rate at once, until one is refused: a slow client spreads a single wave
        // over more than the second the bucket needs to refill.
        const flood: Answer[] = [];
        for (let wave = 0; wave < 4 && !flood.some((answer) => answer.status === 429); wave++) {
          flood.push(
            ...(await Promise.all(Array.from({ length: burst + rate }, () => request('agents?limit=1')))),
          );
        }
        const over = flood.filter((answer) => answer.status === 429);
        const other = flood.find((answer) => answer.status !== 429 && answer.status !== 200);
        if (other) fail(`expected 200 or 429, got ${other.status}`);
        const first =
          over[0] ?? fail(`${flood.length} requests in waves of ${burst + rate}, and not one 429`);
        problemOf(first, 429);
        const seconds = Number(first.headers.get('retry-after'));
        if (!Number.isInteger(seconds) || seconds < 1) fail('the 429 has no Retry-After in seconds');
        for (const [name, value] of [
          ['x-content-type-options', 'nosniff'],
          ['cache-control', 'no-store'],
        ] as const) {
          if (first.headers.get(name) !== value) fail(`the 429 lacks ${name}: ${value}`);
        }
        if (!first.headers.get('x-request-id')) fail('the 429 has no x-request-id');
        await new Promise((done) => setTimeout(done, seconds * 1000));
        expectStatus(await request('agents?limit=1'), 200);
        return `${over.length} of ${flood.length} refused, Retry-After ${seconds}; 200 after it`;
      },
    },
  ];

  return [...(target.write ? writes : []), ...reads, ...guards, ...(target.limits ? limits : [])];
}

export interface Tally {
  passed: number;
  failed: number;
  skipped: number;
}

/** Runs the checks in order, one line each; the tally is printed last by the caller. */
export async function runChecks(checks: Check[], print: (line: string) => void): Promise<Tally> {
  const tally = { passed: 0, failed: 0, skipped: 0 };
  for (const check of checks) {
    try {
      const detail = await check.run();
      tally.passed++;
      print(`pass  ${check.name}: ${detail}`);
    } catch (error) {
      if (error instanceof Skip) {
        tally.skipped++;
        print(`skip  ${check.name}: ${error.message}`);
        continue;
      }
      tally.failed++;
      print(`FAIL  ${check.name}: ${(error as Error).message}`);
    }
  }
  return tally;
}
