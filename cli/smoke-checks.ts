/**
 * What `npm run smoke` holds an API to, over real HTTP: the three operations answer the spec's
 * shapes (checked with the contract's Valibot schemas), authentication and scopes are enforced,
 * pagination links work, bad input is a 400 problem, and (with writes) creation is idempotent.
 */
import { randomBytes } from 'node:crypto';
import * as v from 'valibot';
import { Agent, AgentList } from '#contract/schemas/agent.ts';
import { Problem } from '#contract/schemas/problem.ts';
import { Session, SessionList } from '#contract/schemas/session.ts';
import { tiers } from '#contract/tiers.ts';

export interface SmokeTarget {
  /** The API's base URL, ending in `/` (as the stack's ApiUrl output does). */
  base: URL;
  /** A key with agents:read and sessions:read (and agents:write when `write`). */
  token: string;
  write: boolean;
  /** Also flood the workspace past its tier and check the 429 (a standard workspace; not for prod). */
  limits?: boolean;
  /** A key of the same workspace without agents:read, or why there is none. */
  scopeless: { token: string } | { skip: string };
}

/** A check that does not apply here: reported with its reason, counted neither way. */
export class Skip extends Error {}

export interface Check {
  name: string;
  /** Resolves to a short detail; throws to fail, throws Skip to skip. */
  run: () => Promise<string>;
}

const REQUEST_TIMEOUT_MS = 20_000;

interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

function fail(message: string): never {
  throw new Error(message);
}

/** The body against its schema: the first few issues, with their paths, when it does not match. */
function shaped<S extends v.GenericSchema>(schema: S, answer: Answer, what: string): v.InferOutput<S> {
  const parsed = v.safeParse(schema, answer.body);
  if (parsed.success) return parsed.output;
  const issues = parsed.issues
    .slice(0, 3)
    .map((i) => `${v.getDotPath(i) ?? '(root)'}: ${i.message}`)
    .join('; ');
  return fail(`${what} does not match the contract: ${issues}`);
}

function expectStatus(answer: Answer, status: number, contentType = 'application/json') {
  if (answer.status !== status) {
    fail(`expected ${status}, got ${answer.status}${answer.text ? `: ${answer.text.slice(0, 160)}` : ''}`);
  }
  const type = answer.headers.get('content-type') ?? '';
  if (!type.startsWith(contentType)) fail(`expected ${contentType}, got content-type "${type}"`);
}

const problemOf = (answer: Answer, status: number) => {
  expectStatus(answer, status, 'application/problem+json');
  return shaped(Problem, answer, 'the problem');
};

export function smokeChecks(target: SmokeTarget): Check[] {
  const stamp = new Date().toISOString();
  const created: string[] = [];
  const counts: { agents?: number; sessions?: number } = {};
  let listed: Agent | undefined;

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
        return `201, agent ${agent.id}, version ${agent.version.version}`;
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
        const path = `sessions/${session.id}`;
        const started = await request(`${path}/start`, { method: 'POST' });
        expectStatus(started, 200);
        const beat = await request(`${path}/heartbeat`, { method: 'POST' });
        if (beat.status !== 204) fail(`the heartbeat answered ${beat.status}, not 204`);
        const complete = () =>
          request(`${path}/complete`, { method: 'POST', body: { usage: { amount: 1 } } });
        const [first, again] = [await complete(), await complete()];
        expectStatus(again, 200);
        const done = shaped(Session, first, 'the completed session');
        if (done.status !== 'COMPLETED' || done.ledger?.amount !== 1) fail('not completed with its usage');
        if (again.text !== first.text) fail('a repeated completion answered differently');
        return `session ${session.id}: 201, 200, 204, 200 twice with one ledger entry ${done.ledger.id}`;
      },
    },
  ];

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
      name: 'GET /sessions answers a list of sessions',
      run: async () => {
        const answer = await request('sessions');
        expectStatus(answer, 200);
        const sessions = shaped(SessionList, answer, 'the list');
        counts.sessions = sessions.length;
        return `200, ${sessions.length} session(s) on the first page`;
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
  ];

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
}

/** Runs the checks in order, one line each; the tally is printed last by the caller. */
export async function runChecks(checks: Check[], print: (line: string) => void): Promise<Tally> {
  const tally = { passed: 0, failed: 0 };
  for (const check of checks) {
    try {
      const detail = await check.run();
      tally.passed++;
      print(`pass  ${check.name}: ${detail}`);
    } catch (error) {
      if (error instanceof Skip) {
        print(`skip  ${check.name}: ${error.message}`);
        continue;
      }
      tally.failed++;
      print(`FAIL  ${check.name}: ${(error as Error).message}`);
    }
  }
  return tally;
}
