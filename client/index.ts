/**
 * A typed client for the Voice Agent Administration API. Types come from docs/openapi.json
 * (client/api-types.ts, generated); requests go through openapi-fetch. Imports nothing else of the
 * project, so the folder can be copied or published on its own.
 */
import createFetchClient from 'openapi-fetch';
import type { components, paths } from './api-types.ts';
import { ApiProblem } from './problem.ts';
import { type RetryOptions, retryingFetch } from './retry.ts';

export { ApiProblem, type ProblemFieldError, retryAfterSeconds } from './problem.ts';
export type { RetryOptions } from './retry.ts';

export type Agent = components['schemas']['Agent'];
export type Session = components['schemas']['Session'];
export type CreateAgentBody = components['schemas']['CreateAgentBody'];
export type CreateSessionBody = components['schemas']['CreateSessionBody'];
export type CompleteSessionBody = components['schemas']['CompleteSessionBody'];
export type Event = components['schemas']['Event'];
export type AgentStatus = Agent['status'];
export type SessionStatus = Session['status'];
export type SessionType = Session['type'];
export type AgentVersion = components['schemas']['AgentVersion'];
/** RFC 6902 operations (`add`, `remove`, `replace`) from one version's configuration to another's. */
export type JsonPatch = components['schemas']['JsonPatch'];
export type AgentChange = components['schemas']['AgentChange'];
export type CreateVersionBody = components['schemas']['CreateVersionBody'];
export type UpdateAgentBody = components['schemas']['UpdateAgentBody'];
export type AgentHistoryQuery = Query<'/agents/{agentId}/history'>;
export type LedgerEntry = components['schemas']['LedgerEntry'];
export type Balance = components['schemas']['Balance'];
export type UsageReport = components['schemas']['UsageReport'];
export type CreditBody = components['schemas']['CreditBody'];
export type LedgerReason = LedgerEntry['reason'];
export type UsageQuery = NonNullable<paths['/usage']['get']['parameters']['query']>;
export type WebhookEndpoint = components['schemas']['WebhookEndpoint'];
/** An endpoint with its signing secret (`whsec_…`), answered by create and rotate only. */
export type WebhookEndpointWithSecret = components['schemas']['WebhookEndpointWithSecret'];
export type CreateWebhookEndpointBody = components['schemas']['CreateWebhookEndpointBody'];
export type UpdateWebhookEndpointBody = components['schemas']['UpdateWebhookEndpointBody'];
export type RotateWebhookSecretBody = components['schemas']['RotateWebhookSecretBody'];
export type TestWebhookBody = components['schemas']['TestWebhookBody'];
export type RecoverWebhookBody = components['schemas']['RecoverWebhookBody'];
export type WebhookRecovery = components['schemas']['WebhookRecovery'];
export type WebhookDelivery = components['schemas']['WebhookDelivery'];
/** A delivery with every attempt, oldest first. */
export type WebhookDeliveryDetail = components['schemas']['WebhookDeliveryDetail'];
export type WebhookAttempt = components['schemas']['WebhookAttempt'];
export type WebhookEventType = WebhookDelivery['eventType'];
export type WebhookDeliveryStatus = WebhookDelivery['status'];
export type WebhookEndpointStatus = WebhookEndpoint['status'];
/** A changed resource (an agent, a version, a webhook endpoint) and its ETag after the change. */
export interface Changed<T> {
  data: T;
  etag: string;
}

type Listed =
  | '/agents'
  | '/sessions'
  | '/agents/{agentId}/versions'
  | '/agents/{agentId}/history'
  | '/ledger'
  | '/webhook-endpoints'
  | '/webhook-endpoints/{endpointId}/deliveries';
type Query<P extends Listed> = NonNullable<paths[P]['get']['parameters']['query']>;
/** The document types filter values as text (they may hold commas); the client offers the words. */
export type AgentListQuery = Omit<Query<'/agents'>, 'status'> & { status?: AgentStatus[] };
export type SessionListQuery = Omit<Query<'/sessions'>, 'status' | 'type'> & {
  status?: SessionStatus[];
  type?: SessionType[];
};

export type VersionListQuery = Query<'/agents/{agentId}/versions'>;
export type LedgerListQuery = Omit<Query<'/ledger'>, 'reason' | 'agentId' | 'sessionId'> & {
  reason?: LedgerReason[];
  agentId?: string[];
  sessionId?: string[];
};

export type WebhookEndpointListQuery = Query<'/webhook-endpoints'>;
export type WebhookDeliveryListQuery = Omit<
  Query<'/webhook-endpoints/{endpointId}/deliveries'>,
  'status' | 'eventType'
> & { status?: WebhookDeliveryStatus[]; eventType?: WebhookEventType[] };

export interface Page<T> {
  items: T[];
  /** Where the next page starts, when paging by cursor (`cursor: ''` starts) and one exists. */
  nextCursor?: string;
  /** Where the next page starts, when paging by offset and one exists. */
  nextOffset?: number;
  /** Every match, when the query asked for it with `includeTotal: true`. */
  total?: number;
}

export interface ClientOptions {
  /** The API's base URL, e.g. `http://127.0.0.1:3000` or the stack's `ApiUrl`. */
  baseUrl: string;
  /** A bearer token, `vak_…`. */
  token: string;
  retry?: RetryOptions;
  /** The fetch to send requests with (default: the global one). */
  fetch?: typeof fetch;
}

/** The `rel="next"` target of a Link header (RFC 8288), if any. */
function nextLink(link: string | null, base: string): URL | undefined {
  for (const part of link?.split(/,(?=\s*<)/) ?? []) {
    const match = /^\s*<([^>]*)>(.*)$/.exec(part);
    if (match && /;\s*rel="?([^";]*\s)?next(\s[^";]*)?"?/i.test(match[2] ?? ''))
      return new URL(match[1] ?? '', base);
  }
  return undefined;
}

function page<T>(items: T[], response: Response): Page<T> {
  const next = nextLink(response.headers.get('link'), response.url || 'http://localhost/');
  const total = response.headers.get('x-total-count');
  const cursor = next?.searchParams.get('cursor');
  const offset = next?.searchParams.get('offset');
  return {
    items,
    ...(cursor ? { nextCursor: cursor } : {}),
    ...(offset && cursor === null ? { nextOffset: Number(offset) } : {}),
    ...(total !== null ? { total: Number(total) } : {}),
  };
}

export function createClient(options: ClientOptions) {
  const api = createFetchClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { authorization: `Bearer ${options.token}` },
    fetch: retryingFetch(options.retry, options.fetch),
  });

  /** The answer's data, or its problem thrown. */
  async function settle<T>(
    call: Promise<{ data?: T; error?: unknown; response: Response }>,
  ): Promise<{ data: T; response: Response }> {
    const { data, error, response } = await call;
    if (!response.ok || data === undefined) throw ApiProblem.of(response, error);
    return { data, response };
  }

  async function* every<T>(list: (cursor: string) => Promise<Page<T>>): AsyncGenerator<T> {
    let cursor = '';
    do {
      const { items, nextCursor } = await list(cursor);
      yield* items;
      cursor = nextCursor ?? '';
    } while (cursor !== '');
  }

  const agents = {
    /** `POST /agents`. Safe to retry: a key is generated when none is given. */
    async create(body: CreateAgentBody, init: { idempotencyKey?: string } = {}): Promise<Agent> {
      const key = init.idempotencyKey ?? crypto.randomUUID();
      const { data } = await settle(
        api.POST('/agents', { body, params: { header: { 'Idempotency-Key': key } } }),
      );
      return data;
    },
    /**
     * `GET /agents/{agentId}`: the agent, and its ETag (send it as `If-Match` to change the agent).
     * An unknown id, or another workspace's, throws a 404 `ApiProblem`.
     */
    async get(agentId: string): Promise<{ agent: Agent; etag: string }> {
      const { data, response } = await settle(
        api.GET('/agents/{agentId}', { params: { path: { agentId } } }),
      );
      return { agent: data, etag: response.headers.get('etag') ?? '' };
    },
    /** `GET /agents`: one page. */
    async list(query: AgentListQuery = {}): Promise<Page<Agent>> {
      const { data, response } = await settle(api.GET('/agents', { params: { query } }));
      return page(data, response);
    },
    /** Every agent matching `query`, page by page (by cursor). */
    all(query: Omit<AgentListQuery, 'cursor' | 'offset'> = {}): AsyncGenerator<Agent> {
      return every((cursor) => agents.list({ ...query, cursor }));
    },
    /**
     * `POST /agents/{agentId}/versions`: a new draft version, given the agent's current ETag (`*`:
     * whatever it is). A stale one throws a 412 `ApiProblem`. Safe to retry (a key is generated
     * when none is given).
     */
    async createVersion(
      agentId: string,
      body: CreateVersionBody,
      init: { ifMatch: string; idempotencyKey?: string },
    ): Promise<Changed<AgentVersion>> {
      const key = init.idempotencyKey ?? crypto.randomUUID();
      const header = { 'If-Match': init.ifMatch, 'Idempotency-Key': key };
      return changed(api.POST('/agents/{agentId}/versions', { params: { path: { agentId }, header }, body }));
    },
    /** `PATCH /agents/{agentId}` (a merge patch of name, description, slug), given its current ETag. */
    async update(agentId: string, body: UpdateAgentBody, init: { ifMatch: string }): Promise<Changed<Agent>> {
      return changed(
        api.PATCH('/agents/{agentId}', {
          params: { path: { agentId }, header: { 'If-Match': init.ifMatch } },
          body,
          headers: { 'content-type': 'application/merge-patch+json' },
        }),
      );
    },
    /** `POST /agents/{agentId}/publish`: publish one of its versions (an older one rolls back). */
    async publish(
      agentId: string,
      versionId: string,
      init: { ifMatch?: string } = {},
    ): Promise<Changed<Agent>> {
      const header = init.ifMatch === undefined ? {} : { 'If-Match': init.ifMatch };
      return changed(
        api.POST('/agents/{agentId}/publish', { params: { path: { agentId }, header }, body: { versionId } }),
      );
    },
    /** `POST /agents/{agentId}/archive`; archiving an archived agent answers it unchanged. */
    async archive(agentId: string, init: { ifMatch?: string } = {}): Promise<Changed<Agent>> {
      const header = init.ifMatch === undefined ? {} : { 'If-Match': init.ifMatch };
      return changed(api.POST('/agents/{agentId}/archive', { params: { path: { agentId }, header } }));
    },
    /** `POST /agents/{agentId}/unarchive`; an agent that is not archived is answered unchanged. */
    async unarchive(agentId: string, init: { ifMatch?: string } = {}): Promise<Changed<Agent>> {
      const header = init.ifMatch === undefined ? {} : { 'If-Match': init.ifMatch };
      return changed(api.POST('/agents/{agentId}/unarchive', { params: { path: { agentId }, header } }));
    },
    /** `GET /agents/{agentId}/history`: one page of its changes, newest first. */
    async history(agentId: string, query: AgentHistoryQuery = {}): Promise<Page<AgentChange>> {
      const { data, response } = await settle(
        api.GET('/agents/{agentId}/history', { params: { path: { agentId }, query } }),
      );
      return page(data, response);
    },
  };

  /** A change's answer and the agent's ETag after it. */
  async function changed<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>) {
    const { data, response } = await settle(call);
    return { data, etag: response.headers.get('etag') ?? '' };
  }

  const sessions = {
    /** `GET /sessions`: one page. */
    async list(query: SessionListQuery = {}): Promise<Page<Session>> {
      const { data, response } = await settle(api.GET('/sessions', { params: { query } }));
      return page(data, response);
    },
    /** Every session matching `query`, page by page (by cursor). */
    all(query: Omit<SessionListQuery, 'cursor' | 'offset'> = {}): AsyncGenerator<Session> {
      return every((cursor) => sessions.list({ ...query, cursor }));
    },
    // The voice runtime's write path (a key with `sessions:write`).
    /** `POST /sessions`: a PENDING session. Safe to retry: a key is generated when none is given. */
    async create(body: CreateSessionBody, init: { idempotencyKey?: string } = {}): Promise<Session> {
      const key = init.idempotencyKey ?? crypto.randomUUID();
      const { data } = await settle(
        api.POST('/sessions', { body, params: { header: { 'Idempotency-Key': key } } }),
      );
      return data;
    },
    /** `POST /sessions/{sessionId}/start`: IN_PROGRESS (a repeat answers the same). */
    async start(sessionId: string): Promise<Session> {
      const { data } = await settle(
        api.POST('/sessions/{sessionId}/start', { params: { path: { sessionId } } }),
      );
      return data;
    },
    /** `POST /sessions/{sessionId}/heartbeat`: the heartbeat's time as recorded. */
    async heartbeat(sessionId: string): Promise<string> {
      const { error, response } = await api.POST('/sessions/{sessionId}/heartbeat', {
        params: { path: { sessionId } },
      });
      if (!response.ok) throw ApiProblem.of(response, error);
      return response.headers.get('last-heartbeat-at') ?? '';
    },
    /** `POST /sessions/{sessionId}/complete`: COMPLETED, its usage booked once however often retried. */
    async complete(sessionId: string, body: CompleteSessionBody = {}): Promise<Session> {
      const { data } = await settle(
        api.POST('/sessions/{sessionId}/complete', { params: { path: { sessionId } }, body }),
      );
      return data;
    },
  };

  const versions = {
    /** `GET /agents/{agentId}/versions`: one page, newest (highest number) first. */
    async list(agentId: string, query: VersionListQuery = {}): Promise<Page<AgentVersion>> {
      const { data, response } = await settle(
        api.GET('/agents/{agentId}/versions', { params: { path: { agentId }, query } }),
      );
      return page(data, response);
    },
    /** Every version of the agent, page by page (by cursor). */
    all(
      agentId: string,
      query: Omit<VersionListQuery, 'cursor' | 'offset'> = {},
    ): AsyncGenerator<AgentVersion> {
      return every((cursor) => versions.list(agentId, { ...query, cursor }));
    },
    /** `GET /agents/{agentId}/versions/{versionId}`; a version not the agent's throws a 404 `ApiProblem`. */
    async get(agentId: string, versionId: string): Promise<AgentVersion> {
      const { data } = await settle(
        api.GET('/agents/{agentId}/versions/{versionId}', { params: { path: { agentId, versionId } } }),
      );
      return data;
    },
    /**
     * `GET /agents/{agentId}/versions/{versionId}/diff/{toVersionId}`: the JSON Patch turning the
     * first version's configuration into the second's (`[]` when they configure the same).
     */
    async diff(agentId: string, versionId: string, toVersionId: string): Promise<JsonPatch> {
      const { data } = await settle(
        api.GET('/agents/{agentId}/versions/{versionId}/diff/{toVersionId}', {
          params: { path: { agentId, versionId, toVersionId } },
        }),
      );
      return data;
    },
  };

  /** `GET /sessions/{sessionId}`: one session with its embeds; another workspace's throws a 404 `ApiProblem`. */
  async function getSession(sessionId: string): Promise<Session> {
    const { data } = await settle(api.GET('/sessions/{sessionId}', { params: { path: { sessionId } } }));
    return data;
  }

  const events = {
    /**
     * `GET /events`: the events after `cursor` (omitted: the oldest kept), in feed order, and the
     * cursor to continue from (also when none was new): poll with it to see each event once.
     */
    async list(
      query: { cursor?: string; type?: Event['type'][]; limit?: number } = {},
    ): Promise<{ items: Event[]; nextCursor: string; more: boolean }> {
      const { data, response } = await settle(api.GET('/events', { params: { query } }));
      return {
        items: data,
        nextCursor: response.headers.get('x-next-cursor') ?? '',
        more: response.headers.get('link') !== null,
      };
    },
  };

  // A key with `usage:read` reads; `billing:write` credits.
  const ledger = {
    /** `GET /ledger`: one page of the workspace's entries, newest first. */
    async list(query: LedgerListQuery = {}): Promise<Page<LedgerEntry>> {
      const { data, response } = await settle(api.GET('/ledger', { params: { query } }));
      // The document also offers the page as CSV (`csv` below); without asking for it, JSON comes.
      return page(data as LedgerEntry[], response);
    },
    /** Every entry matching `query`, page by page (by cursor). */
    all(query: Omit<LedgerListQuery, 'cursor' | 'offset'> = {}): AsyncGenerator<LedgerEntry> {
      return every((cursor) => ledger.list({ ...query, cursor }));
    },
    /** `GET /ledger` with `Accept: text/csv`: the same page as RFC 4180 CSV, a header line first. */
    async csv(query: LedgerListQuery = {}): Promise<string> {
      const { data, error, response } = await api.GET('/ledger', {
        params: { query },
        headers: { accept: 'text/csv' },
        parseAs: 'text',
      });
      if (!response.ok || data === undefined) throw ApiProblem.of(response, error);
      return data;
    },
    /** `GET /ledger/{entryId}`; another workspace's throws a 404 `ApiProblem`. */
    async get(entryId: string): Promise<LedgerEntry> {
      const { data } = await settle(api.GET('/ledger/{entryId}', { params: { path: { entryId } } }));
      return data;
    },
    /** `GET /balance`: the sum of the entries, the last one it includes, the low-balance threshold. */
    async balance(): Promise<Balance> {
      return (await settle(api.GET('/balance'))).data;
    },
    /** `GET /usage`: totals per day, agent or reason over whole days `from`..`to` in `timezone`. */
    async usage(query: UsageQuery): Promise<UsageReport> {
      return (await settle(api.GET('/usage', { params: { query } }))).data;
    },
    /**
     * `POST /ledger/credits`: a refill, booked once per idempotency key (stored on the entry).
     * Safe to retry: a key is generated when none is given.
     */
    async credit(body: CreditBody, init: { idempotencyKey?: string } = {}): Promise<LedgerEntry> {
      const key = init.idempotencyKey ?? crypto.randomUUID();
      const { data } = await settle(
        api.POST('/ledger/credits', { body, params: { header: { 'Idempotency-Key': key } } }),
      );
      return data;
    },
  };

  // A key with `webhooks:manage`. Another workspace's endpoint or delivery throws a 404 `ApiProblem`.
  const webhooks = {
    /**
     * `POST /webhook-endpoints`: the endpoint with its signing secret, shown this once, and its ETag.
     * Safe to retry: a key is generated when none is given. A replay under the same key answers the
     * endpoint without `secret` (the secret is never stored in clear: rotate for a new one).
     */
    async create(
      body: CreateWebhookEndpointBody,
      init: { idempotencyKey?: string } = {},
    ): Promise<Changed<WebhookEndpoint & { secret?: string }>> {
      const key = init.idempotencyKey ?? crypto.randomUUID();
      return changed(
        api.POST('/webhook-endpoints', { body, params: { header: { 'Idempotency-Key': key } } }),
      );
    },
    /** `GET /webhook-endpoints`: one page, newest first. */
    async list(query: WebhookEndpointListQuery = {}): Promise<Page<WebhookEndpoint>> {
      const { data, response } = await settle(api.GET('/webhook-endpoints', { params: { query } }));
      return page(data, response);
    },
    /** Every endpoint, page by page (by cursor). */
    all(query: Omit<WebhookEndpointListQuery, 'cursor' | 'offset'> = {}): AsyncGenerator<WebhookEndpoint> {
      return every((cursor) => webhooks.list({ ...query, cursor }));
    },
    /** `GET /webhook-endpoints/{endpointId}`: the endpoint and its health, and its ETag (for `If-Match`). */
    async get(endpointId: string): Promise<{ endpoint: WebhookEndpoint; etag: string }> {
      const { data, response } = await settle(
        api.GET('/webhook-endpoints/{endpointId}', { params: { path: { endpointId } } }),
      );
      return { endpoint: data, etag: response.headers.get('etag') ?? '' };
    },
    /**
     * `PATCH /webhook-endpoints/{endpointId}`: URL, description, events, agents, metadata or status
     * (`enabled` also re-enables an auto-disabled one), given its current ETag; a stale one throws 412.
     */
    async update(
      endpointId: string,
      body: UpdateWebhookEndpointBody,
      init: { ifMatch: string },
    ): Promise<Changed<WebhookEndpoint>> {
      return changed(
        api.PATCH('/webhook-endpoints/{endpointId}', {
          params: { path: { endpointId }, header: { 'If-Match': init.ifMatch } },
          body,
        }),
      );
    },
    /** `DELETE /webhook-endpoints/{endpointId}` with its deliveries, given its current ETag. */
    async delete(endpointId: string, init: { ifMatch: string }): Promise<void> {
      const { error, response } = await api.DELETE('/webhook-endpoints/{endpointId}', {
        params: { path: { endpointId }, header: { 'If-Match': init.ifMatch } },
      });
      if (!response.ok) throw ApiProblem.of(response, error);
    },
    /**
     * `POST /webhook-endpoints/{endpointId}/secret/rotate`: a new secret, shown this once; the old
     * one also signs for `gracePeriodSeconds` (default and most: 24 h).
     */
    async rotateSecret(
      endpointId: string,
      body: RotateWebhookSecretBody = {},
    ): Promise<Changed<WebhookEndpointWithSecret>> {
      return changed(
        api.POST('/webhook-endpoints/{endpointId}/secret/rotate', { params: { path: { endpointId } }, body }),
      );
    },
    /** `POST /webhook-endpoints/{endpointId}/test`: a signed delivery of the type's example, queued. */
    async test(endpointId: string, body: TestWebhookBody = {}): Promise<WebhookDelivery> {
      const { data } = await settle(
        api.POST('/webhook-endpoints/{endpointId}/test', { params: { path: { endpointId } }, body }),
      );
      return data;
    },
    /**
     * `POST /webhook-endpoints/{endpointId}/recover`: queues, in feed order, every event of the
     * window (`since` to `until`, or now) the endpoint takes and has no successful delivery of yet.
     */
    async recover(endpointId: string, body: RecoverWebhookBody): Promise<WebhookRecovery> {
      const { data } = await settle(
        api.POST('/webhook-endpoints/{endpointId}/recover', { params: { path: { endpointId } }, body }),
      );
      return data;
    },
    /** `GET /webhook-endpoints/{endpointId}/deliveries`: one page of its deliveries, newest first. */
    async deliveries(
      endpointId: string,
      query: WebhookDeliveryListQuery = {},
    ): Promise<Page<WebhookDelivery>> {
      const { data, response } = await settle(
        api.GET('/webhook-endpoints/{endpointId}/deliveries', { params: { path: { endpointId }, query } }),
      );
      return page(data, response);
    },
    /** Every delivery of the endpoint matching `query`, page by page (by cursor). */
    allDeliveries(
      endpointId: string,
      query: Omit<WebhookDeliveryListQuery, 'cursor' | 'offset'> = {},
    ): AsyncGenerator<WebhookDelivery> {
      return every((cursor) => webhooks.deliveries(endpointId, { ...query, cursor }));
    },
    /** `GET /webhook-deliveries/{deliveryId}`: the delivery and every attempt. */
    async delivery(deliveryId: string): Promise<WebhookDeliveryDetail> {
      const { data } = await settle(
        api.GET('/webhook-deliveries/{deliveryId}', { params: { path: { deliveryId } } }),
      );
      return data;
    },
    /** `POST /webhook-deliveries/{deliveryId}/redeliver`: a new delivery, same `webhook-id` and body. */
    async redeliver(deliveryId: string): Promise<WebhookDelivery> {
      const { data } = await settle(
        api.POST('/webhook-deliveries/{deliveryId}/redeliver', { params: { path: { deliveryId } } }),
      );
      return data;
    },
  };

  return { agents, versions, sessions: { ...sessions, get: getSession }, events, ledger, webhooks };
}

export type Client = ReturnType<typeof createClient>;
