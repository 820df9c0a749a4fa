import { randomUUID } from 'node:crypto';
import { createId } from '@paralleldrive/cuid2';
import { openApiDocument } from '#contract/openapi.ts';
import { scopes as allScopes, type Route, routes, type Scope } from '#contract/routes.ts';
import type { DatabaseHandle } from '#db/client.ts';
import { archiveAgent, type ChangeOf, createVersion, publishAgent } from '#db/queries/agent-changes.ts';
import type { CallingKey } from '#db/queries/api-keys.ts';
import { createAgent } from '#db/queries/create-agent.ts';
import { createSession } from '#db/queries/create-session.ts';
import { parsed } from '#db/queries/json-text.ts';
import { bookCredit } from '#db/queries/ledger.ts';
import { createApiKey } from '#db/queries/manage-api-keys.ts';
import { startSession } from '#db/queries/session-writes.ts';
import { queueTest } from '#db/queries/webhook-deliveries.ts';
import { createEndpoint } from '#db/queries/webhook-endpoints.ts';
import type { ApiEvent } from '#functions/http/types.ts';
import { secretBoxFromEnv } from '#functions/webhooks/secrets.ts';
import { newSecret } from '#functions/webhooks/signature.ts';
import { apiEvent } from './events.ts';
import { createTenant, type Tenant } from './tenants.ts';

/** A route of the table by its key (`createAgent`, `listSessions`…). */
export type RouteKey = keyof typeof routes;
export const routeKeys = Object.keys(routes) as RouteKey[];

/** One request to a route as a client sends it (the bearer token is the world's caller's). */
export interface RouteRequest {
  method: Route['method'];
  /** The concrete path, its ids filled in. */
  path: string;
  /** The query string, without `?`. */
  query?: string;
  headers?: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
  /** What the world's caller is answered while its key is live. */
  status: number;
}

/**
 * What the requests need, in one workspace. The caller's key holds every scope and is the one a
 * test may revoke; the fixtures make what they consume with `writer`, another key of the workspace
 * that stays live, through the write-path queries (so rows are exactly as the API makes them).
 */
export interface World {
  database: DatabaseHandle;
  caller: Tenant;
  writer: CallingKey & { principalId: string };
  /** A PUBLISHED agent: version 1 published, version 2 a newer draft; its current ETag. */
  agent: { id: string; etag: string; publishedVersionId: string; draftVersionId: string };
  /** A PENDING session of that agent, on its published version. */
  session: { id: string };
}

/**
 * One valid request per route, each a function of the world. Typed by the route table, so a route
 * added to contract/routes.ts without a request here fails `tsc`. A request that changes state
 * (publish, archive, start, complete…) makes its own target first, so each call is one that
 * changes something, however often it is called.
 */
export const routeRequests: Record<RouteKey, (world: World) => Promise<RouteRequest>> = {
  createAgent: async () => ({
    method: 'POST',
    path: '/agents',
    body: { name: `Fixture ${unique()}` },
    status: 201,
  }),
  listAgents: async () => ({ method: 'GET', path: '/agents', status: 200 }),
  getAgent: async ({ agent }) => ({ method: 'GET', path: `/agents/${agent.id}`, status: 200 }),
  listSessions: async () => ({ method: 'GET', path: '/sessions', status: 200 }),
  listVersions: async ({ agent }) => ({ method: 'GET', path: `/agents/${agent.id}/versions`, status: 200 }),
  getVersion: async ({ agent }) => ({
    method: 'GET',
    path: `/agents/${agent.id}/versions/${agent.publishedVersionId}`,
    status: 200,
  }),
  diffVersions: async ({ agent }) => ({
    method: 'GET',
    path: `/agents/${agent.id}/versions/${agent.publishedVersionId}/diff/${agent.draftVersionId}`,
    status: 200,
  }),
  getSession: async ({ session }) => ({ method: 'GET', path: `/sessions/${session.id}`, status: 200 }),
  createVersion: async (world) => {
    const agent = await newAgent(world);
    return {
      method: 'POST',
      path: `/agents/${agent.id}/versions`,
      headers: { 'if-match': agent.etag, 'idempotency-key': `fixture-${randomUUID()}` },
      body: { systemPrompt: 'Be brief.' },
      status: 201,
    };
  },
  updateAgent: async (world) => {
    const agent = await newAgent(world);
    return {
      method: 'PATCH',
      path: `/agents/${agent.id}`,
      headers: { 'if-match': agent.etag },
      body: { name: `Renamed ${unique()}` },
      status: 200,
    };
  },
  publishAgent: async (world) => {
    const agent = await newAgent(world);
    return {
      method: 'POST',
      path: `/agents/${agent.id}/publish`,
      headers: { 'if-match': agent.etag },
      body: { versionId: agent.versionId },
      status: 200,
    };
  },
  archiveAgent: async (world) => {
    const agent = await newAgent(world);
    return {
      method: 'POST',
      path: `/agents/${agent.id}/archive`,
      headers: { 'if-match': agent.etag },
      status: 200,
    };
  },
  unarchiveAgent: async (world) => {
    const agent = await newAgent(world);
    const archived = await archiveAgent(world.database.sql, changeOf(world, agent.id));
    if (archived.kind !== 'changed') throw new Error(`fixture: archive answered ${archived.kind}`);
    return {
      method: 'POST',
      path: `/agents/${agent.id}/unarchive`,
      headers: { 'if-match': archived.etag },
      status: 200,
    };
  },
  agentHistory: async ({ agent }) => ({ method: 'GET', path: `/agents/${agent.id}/history`, status: 200 }),
  createSession: async ({ agent }) => ({
    method: 'POST',
    path: '/sessions',
    headers: { 'idempotency-key': `fixture-${randomUUID()}` },
    body: { agentId: agent.id, type: 'WEB_VOICE', person: { email: `caller-${unique()}@example.com` } },
    status: 201,
  }),
  startSession: async (world) => ({
    method: 'POST',
    path: `/sessions/${await newSession(world)}/start`,
    status: 200,
  }),
  heartbeatSession: async (world) => ({
    method: 'POST',
    path: `/sessions/${await newSession(world, { started: true })}/heartbeat`,
    status: 204,
  }),
  completeSession: async (world) => ({
    method: 'POST',
    path: `/sessions/${await newSession(world, { started: true })}/complete`,
    body: { usage: { amount: -3 } },
    status: 200,
  }),
  listEvents: async () => ({ method: 'GET', path: '/events', status: 200 }),
  listLedger: async () => ({ method: 'GET', path: '/ledger', status: 200 }),
  getLedgerEntry: async (world) => {
    const credit = {
      amount: 5,
      reason: 'PURCHASE_REFILL',
      reasonDetails: null,
      redemptionCodeId: null,
    } as const;
    const { item } = await bookCredit(world.database.sql, world.writer, {
      ...credit,
      idempotencyKey: `fixture-${randomUUID()}`,
      principalId: world.writer.principalId,
    });
    return { method: 'GET', path: `/ledger/${(JSON.parse(item) as { id: string }).id}`, status: 200 };
  },
  createCredit: async () => ({
    method: 'POST',
    path: '/ledger/credits',
    headers: { 'idempotency-key': `fixture-${randomUUID()}` },
    body: { amount: 100, reason: 'PURCHASE_REFILL', reasonDetails: 'Invoice 1' },
    status: 201,
  }),
  getBalance: async () => ({ method: 'GET', path: '/balance', status: 200 }),
  getUsage: async () => ({
    method: 'GET',
    path: '/usage',
    query: 'from=2026-01-01&to=2026-01-31',
    status: 200,
  }),
  createWebhookEndpoint: async () => ({
    method: 'POST',
    path: '/webhook-endpoints',
    headers: { 'idempotency-key': `fixture-${randomUUID()}` },
    body: { url: `https://hooks.example.com/${unique()}`, enabledEvents: ['*'] },
    status: 201,
  }),
  listWebhookEndpoints: async () => ({ method: 'GET', path: '/webhook-endpoints', status: 200 }),
  getWebhookEndpoint: async (world) => ({
    method: 'GET',
    path: `/webhook-endpoints/${(await newEndpoint(world)).id}`,
    status: 200,
  }),
  updateWebhookEndpoint: async (world) => {
    const endpoint = await newEndpoint(world);
    return {
      method: 'PATCH',
      path: `/webhook-endpoints/${endpoint.id}`,
      headers: { 'if-match': endpoint.etag },
      body: { description: `Changed ${unique()}` },
      status: 200,
    };
  },
  deleteWebhookEndpoint: async (world) => {
    const endpoint = await newEndpoint(world);
    return {
      method: 'DELETE',
      path: `/webhook-endpoints/${endpoint.id}`,
      headers: { 'if-match': endpoint.etag },
      status: 204,
    };
  },
  rotateWebhookSecret: async (world) => ({
    method: 'POST',
    path: `/webhook-endpoints/${(await newEndpoint(world)).id}/secret/rotate`,
    body: { gracePeriodSeconds: 60 },
    status: 200,
  }),
  testWebhookEndpoint: async (world) => ({
    method: 'POST',
    path: `/webhook-endpoints/${(await newEndpoint(world)).id}/test`,
    body: { eventType: 'agent.created' },
    status: 202,
  }),
  recoverWebhookEvents: async (world) => ({
    method: 'POST',
    path: `/webhook-endpoints/${(await newEndpoint(world)).id}/recover`,
    // A window from now: one from the world's start would re-queue every event the world has made,
    // so each call of a long test (the scope matrix) would cost more than the one before.
    body: { since: new Date().toISOString() },
    status: 202,
  }),
  listWebhookDeliveries: async (world) => ({
    method: 'GET',
    path: `/webhook-endpoints/${(await newEndpoint(world)).id}/deliveries`,
    status: 200,
  }),
  getWebhookDelivery: async (world) => ({
    method: 'GET',
    path: `/webhook-deliveries/${await newDelivery(world)}`,
    status: 200,
  }),
  redeliverWebhook: async (world) => ({
    method: 'POST',
    path: `/webhook-deliveries/${await newDelivery(world)}/redeliver`,
    status: 202,
  }),
};

/** A new workspace, its caller and writer keys, a published agent with a newer draft, and a session of it. */
export async function buildWorld(database: DatabaseHandle): Promise<World> {
  const caller = await createTenant(database.db, { scopes: allScopes });
  const key = await createApiKey(database.db, {
    workspaceId: caller.workspaceId,
    name: 'fixture writer',
    scopes: [],
  });
  const writer = { workspaceId: caller.workspaceId, keyId: key.id, principalId: key.principalId };
  const partial = { database, caller, writer };
  const created = await newAgent(partial);
  const draft = await createVersion(database.sql, changeOf(partial, created.id), {});
  if (draft.kind !== 'changed') throw new Error(`fixture: new version answered ${draft.kind}`);
  const published = await publishAgent(database.sql, changeOf(partial, created.id), created.versionId);
  if (published.kind !== 'changed') throw new Error(`fixture: publish answered ${published.kind}`);
  const agent = {
    id: created.id,
    etag: published.etag,
    publishedVersionId: created.versionId,
    draftVersionId: parsed(draft.answer).id,
  };
  const session = { id: await newSession({ ...partial, agent }) };
  return { ...partial, agent, session };
}

/**
 * The request as the route's function receives it behind API Gateway: the world's caller's key
 * allowed with every scope, or `as` another caller (`null`: no authorizer context at all) and scopes.
 */
export function toApiEvent(
  world: World,
  key: RouteKey,
  request: RouteRequest,
  as: { caller?: Tenant | null; scopes?: readonly string[] } = {},
): ApiEvent {
  return apiEvent({
    method: request.method,
    path: request.path,
    resource: routes[key].path,
    query: request.query,
    headers: request.headers,
    body: request.body,
    caller: as.caller === undefined ? world.caller : as.caller,
    scopes: (as.scopes ?? allScopes).join(' '),
  });
}

/** The request as sent over HTTP with the caller's bearer token: target (path and query), headers, body. */
export function httpRequestOf(world: World, request: RouteRequest) {
  return {
    method: request.method,
    path: `${request.path}${request.query ? `?${request.query}` : ''}`,
    headers: {
      authorization: `Bearer ${world.caller.token}`,
      ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...request.headers,
    } as Record<string, string>,
    body: request.body === undefined ? undefined : JSON.stringify(request.body),
  };
}

/** The request over HTTP, to a (local) gateway at `baseUrl`, with the caller's bearer token. */
export function sendTo(baseUrl: string, world: World, request: RouteRequest): Promise<Response> {
  const { path, ...init } = httpRequestOf(world, request);
  return fetch(`${baseUrl}${path}`, init);
}

/** The same request with each path parameter's segment replaced by `value(name)`, sent as given (encode it). */
export function withPathValues(
  key: RouteKey,
  request: RouteRequest,
  value: (name: string) => string,
): RouteRequest {
  const template = routes[key].path.split('/');
  const path = request.path
    .split('/')
    .map((segment, i) => {
      const name = /^\{(.+)\}$/.exec(template[i] ?? '')?.[1];
      return name ? value(name) : segment;
    })
    .join('/');
  return { ...request, path };
}

/** A path parameter's value in the request (as sent: still percent-encoded). */
export const pathValueOf = (key: RouteKey, request: RouteRequest, name: string): string =>
  request.path.split('/')[routes[key].path.split('/').indexOf(`{${name}}`)] as string;

/** The same request naming ids no row has (each of its path's parameters a new cuid2). */
export const withUnknownIds = (key: RouteKey, request: RouteRequest): RouteRequest =>
  withPathValues(key, request, () => createId());

/** The same request under a new Idempotency-Key, if it sends one (so it is not a repeat of the first). */
export const withNewIdempotencyKey = (request: RouteRequest): RouteRequest =>
  request.headers?.['idempotency-key'] === undefined
    ? request
    : { ...request, headers: { ...request.headers, 'idempotency-key': `fixture-${randomUUID()}` } };

/** The world's workspace with a caller of its own: a new key holding `scopes`. */
export async function withCaller(world: World, scopes: readonly Scope[]): Promise<World> {
  const key = await createApiKey(world.database.db, {
    workspaceId: world.caller.workspaceId,
    name: `fixture caller ${unique()}`,
    scopes,
  });
  const caller = { ...world.caller, keyId: key.id, principalId: key.principalId, token: key.token };
  return { ...world, caller };
}

/** Every id of the world's own: none of them may reach another workspace's caller. */
export const idsOf = (world: World): string[] => [
  world.caller.workspaceId,
  world.caller.principalId,
  world.caller.keyId,
  world.writer.principalId,
  world.writer.keyId,
  world.agent.id,
  world.agent.publishedVersionId,
  world.agent.draftVersionId,
  world.session.id,
];

interface Operation {
  requestBody?: { required?: boolean };
  parameters?: { name: string; in: string }[];
}
let document: ReturnType<typeof openApiDocument> | undefined;
/** The route's operation in the OpenAPI document (derived from the same route table). */
function operationOf(key: RouteKey): Operation {
  document ??= openApiDocument();
  const route = routes[key];
  const path = document.paths[route.path] as Record<string, Operation>;
  return path[route.method.toLowerCase()] as Operation;
}

/** Whether the route takes a JSON body, as its OpenAPI operation says: required, optional, or none. */
export function bodyOf(key: RouteKey): 'required' | 'optional' | undefined {
  const body = operationOf(key).requestBody;
  return body === undefined ? undefined : body.required ? 'required' : 'optional';
}

/** The query parameters the route's OpenAPI operation names (any other is refused). */
export const queryParamsOf = (key: RouteKey): string[] =>
  (operationOf(key).parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);

let counter = 0;

/** A webhook endpoint of the world's workspace, made by the writer through the query the route uses. */
async function newEndpoint(world: Writing): Promise<{ id: string; etag: string }> {
  const id = createId();
  const { etag } = await createEndpoint(world.database.sql, world.writer, {
    id,
    url: `https://hooks.example.com/${unique()}`,
    description: '',
    enabledEvents: ['*'],
    agentIds: null,
    metadata: {},
    secretSealed: secretBoxFromEnv().seal(newSecret(), id),
    principalId: world.writer.principalId,
  });
  return { id, etag };
}

/** A queued test delivery to a new endpoint of the world's workspace: its id. */
async function newDelivery(world: Writing): Promise<string> {
  const endpoint = await newEndpoint(world);
  const item = await queueTest(world.database.sql, world.writer, endpoint.id, 'agent.created', {
    agentId: 'a',
    name: 'A',
    slug: 'a',
    versionId: 'v',
  });
  if (!item) throw new Error('fixture: no test delivery');
  return (JSON.parse(item) as { id: string }).id;
}
const unique = () => `${++counter}-${randomUUID().slice(0, 8)}`;

type Writing = Pick<World, 'database' | 'caller' | 'writer'>;

/** A change by the writer, on any ETag. */
const changeOf = ({ writer }: Writing, agentId: string): ChangeOf => ({
  ...writer,
  agentId,
  ifMatch: undefined,
});

/** A new DRAFT agent with its version 1, made as POST /agents makes one; its ETag. */
async function newAgent(world: Writing) {
  const { writer } = world;
  const agent = await createAgent(world.database.sql, {
    ...writer,
    name: `Fixture ${unique()}`,
    description: null,
    // A slug of its own: deriving one looks past every earlier fixture's, slower the more there are.
    slug: { given: `fixture-${unique()}` },
    version: {
      config: null,
      systemPrompt: 'A fixture.',
      knowledgeBaseId: null,
      inputMode: [],
      followUp: false,
    },
  });
  return { id: agent.id, etag: agent.etag, versionId: parsed(agent.item).version?.id as string };
}

/** A new PENDING session (IN_PROGRESS when `started`) of the world's agent, made as POST /sessions makes one. */
async function newSession(world: Writing & Pick<World, 'agent'>, options: { started?: boolean } = {}) {
  return world.database.sql.transaction(async (tx) => {
    const { id } = await createSession(tx, {
      workspaceId: world.writer.workspaceId,
      keyId: world.writer.keyId,
      agentId: world.agent.id,
      agentVersionId: null,
      type: 'WEB_VOICE',
      name: null,
      recordAudio: false,
      person: { email: `person-${unique()}@example.com`, phone: null, properties: {} },
    });
    if (options.started) await startSession(tx, world.writer, id);
    return id;
  });
}
