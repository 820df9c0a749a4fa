/**
 * The route table: the one list of operations. The CDK stack makes one function per row and the
 * local gateway serves the same rows, so the deployed API and the local one cannot drift.
 * Pure data on purpose: every Lambda bundle imports it, so it must not import handler code.
 */
/**
 * `agents:publish` guards what changes what callers of a published agent get (publish, archive,
 * unarchive), apart from `agents:write`, which only drafts (docs/api.md, "Scopes"). `sessions:write`
 * is meant for a voice runtime's keys, not people's. `billing:write` adds credit to the ledger;
 * `usage:read` reads the ledger, the balance and the usage report.
 */
export const scopes = [
  'agents:read',
  'agents:write',
  'agents:publish',
  'sessions:read',
  'sessions:write',
  'events:read',
  'usage:read',
  'billing:write',
  'webhooks:manage',
] as const;
export type Scope = (typeof scopes)[number];

export interface Route {
  /** Stable name: function names, log groups, OpenAPI operationId. */
  readonly name: string;
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** API Gateway/OpenAPI syntax: `{name}` is a whole segment, a parameter of contract/schemas/path.ts. */
  readonly path: string;
  /** Module (from the repository root) whose `handler` export is deployed and `build(deps)` is tested. */
  readonly entry: string;
  readonly scope: Scope;
  readonly summary: string;
}

export const routes = {
  createAgent: {
    name: 'create-agent',
    method: 'POST',
    path: '/agents',
    entry: 'functions/agents/create.ts',
    scope: 'agents:write',
    summary: 'Create an agent with its first version',
  },
  listAgents: {
    name: 'list-agents',
    method: 'GET',
    path: '/agents',
    entry: 'functions/agents/list.ts',
    scope: 'agents:read',
    summary: 'List agents, newest first',
  },
  getAgent: {
    name: 'get-agent',
    method: 'GET',
    path: '/agents/{agentId}',
    entry: 'functions/agents/get.ts',
    scope: 'agents:read',
    summary: 'Read one agent',
  },
  listSessions: {
    name: 'list-sessions',
    method: 'GET',
    path: '/sessions',
    entry: 'functions/sessions/list.ts',
    scope: 'sessions:read',
    summary: 'List sessions, newest first',
  },
  listVersions: {
    name: 'list-versions',
    method: 'GET',
    path: '/agents/{agentId}/versions',
    entry: 'functions/versions/list.ts',
    scope: 'agents:read',
    summary: "List an agent's versions, newest first",
  },
  getVersion: {
    name: 'get-version',
    method: 'GET',
    path: '/agents/{agentId}/versions/{versionId}',
    entry: 'functions/versions/get.ts',
    scope: 'agents:read',
    summary: 'Read one version of an agent',
  },
  diffVersions: {
    name: 'diff-versions',
    method: 'GET',
    path: '/agents/{agentId}/versions/{versionId}/diff/{toVersionId}',
    entry: 'functions/versions/diff.ts',
    scope: 'agents:read',
    summary: "Diff two versions' configurations as a JSON Patch",
  },
  getSession: {
    name: 'get-session',
    method: 'GET',
    path: '/sessions/{sessionId}',
    entry: 'functions/sessions/get.ts',
    scope: 'sessions:read',
    summary: 'Read one session',
  },
  // Changes to an agent (issue 25): drafts need agents:write, what callers get agents:publish.
  createVersion: {
    name: 'create-version',
    method: 'POST',
    path: '/agents/{agentId}/versions',
    entry: 'functions/versions/create.ts',
    scope: 'agents:write',
    summary: 'Add a draft version to an agent',
  },
  updateAgent: {
    name: 'update-agent',
    method: 'PATCH',
    path: '/agents/{agentId}',
    entry: 'functions/agents/update.ts',
    scope: 'agents:write',
    summary: "Change an agent's name, description or slug",
  },
  publishAgent: {
    name: 'publish-agent',
    method: 'POST',
    path: '/agents/{agentId}/publish',
    entry: 'functions/agents/publish.ts',
    scope: 'agents:publish',
    summary: "Publish one of the agent's versions (or roll back to an older one)",
  },
  archiveAgent: {
    name: 'archive-agent',
    method: 'POST',
    path: '/agents/{agentId}/archive',
    entry: 'functions/agents/archive.ts',
    scope: 'agents:publish',
    summary: 'Archive an agent',
  },
  unarchiveAgent: {
    name: 'unarchive-agent',
    method: 'POST',
    path: '/agents/{agentId}/unarchive',
    entry: 'functions/agents/unarchive.ts',
    scope: 'agents:publish',
    summary: 'Unarchive an agent',
  },
  agentHistory: {
    name: 'agent-history',
    method: 'GET',
    path: '/agents/{agentId}/history',
    entry: 'functions/agents/history.ts',
    scope: 'agents:read',
    summary: "An agent's history of changes, newest first",
  },
  // The voice runtime's write path (issue 26): keys with `sessions:write` are meant for it, not people.
  createSession: {
    name: 'create-session',
    method: 'POST',
    path: '/sessions',
    entry: 'functions/sessions/create.ts',
    scope: 'sessions:write',
    summary: 'Record a new session (PENDING) for an agent',
  },
  startSession: {
    name: 'start-session',
    method: 'POST',
    path: '/sessions/{sessionId}/start',
    entry: 'functions/sessions/start.ts',
    scope: 'sessions:write',
    summary: 'Mark a session started (IN_PROGRESS)',
  },
  heartbeatSession: {
    name: 'heartbeat-session',
    method: 'POST',
    path: '/sessions/{sessionId}/heartbeat',
    entry: 'functions/sessions/heartbeat.ts',
    scope: 'sessions:write',
    summary: 'Record that a session in progress is alive',
  },
  completeSession: {
    name: 'complete-session',
    method: 'POST',
    path: '/sessions/{sessionId}/complete',
    entry: 'functions/sessions/complete.ts',
    scope: 'sessions:write',
    summary: 'Complete a session and book its usage once',
  },
  // The outbox as a pull feed (issue 26).
  listEvents: {
    name: 'list-events',
    method: 'GET',
    path: '/events',
    entry: 'functions/events/list.ts',
    scope: 'events:read',
    summary: 'The event feed, in order, from a cursor',
  },
  // The ledger (issue 39): reading it needs usage:read, crediting billing:write.
  listLedger: {
    name: 'list-ledger',
    method: 'GET',
    path: '/ledger',
    entry: 'functions/ledger/list.ts',
    scope: 'usage:read',
    summary: "The workspace's ledger entries, newest first (JSON, or CSV)",
  },
  getLedgerEntry: {
    name: 'get-ledger-entry',
    method: 'GET',
    path: '/ledger/{entryId}',
    entry: 'functions/ledger/get.ts',
    scope: 'usage:read',
    summary: 'Read one ledger entry',
  },
  createCredit: {
    name: 'create-credit',
    method: 'POST',
    path: '/ledger/credits',
    entry: 'functions/ledger/credit.ts',
    scope: 'billing:write',
    summary: 'Add credit to the workspace (a refill entry), once per Idempotency-Key',
  },
  getBalance: {
    name: 'get-balance',
    method: 'GET',
    path: '/balance',
    entry: 'functions/ledger/balance.ts',
    scope: 'usage:read',
    summary: "The workspace's balance and the last entry it includes",
  },
  getUsage: {
    name: 'get-usage',
    method: 'GET',
    path: '/usage',
    entry: 'functions/ledger/usage.ts',
    scope: 'usage:read',
    summary: 'Usage totals over a window of days, by day, agent or reason',
  },
  // Webhooks: signed deliveries of the feed's events to the workspace's own endpoints.
  createWebhookEndpoint: {
    name: 'create-webhook-endpoint',
    method: 'POST',
    path: '/webhook-endpoints',
    entry: 'functions/webhooks/create.ts',
    scope: 'webhooks:manage',
    summary: 'Register a webhook endpoint; answers its signing secret once',
  },
  listWebhookEndpoints: {
    name: 'list-webhook-endpoints',
    method: 'GET',
    path: '/webhook-endpoints',
    entry: 'functions/webhooks/list.ts',
    scope: 'webhooks:manage',
    summary: "The workspace's webhook endpoints, newest first",
  },
  getWebhookEndpoint: {
    name: 'get-webhook-endpoint',
    method: 'GET',
    path: '/webhook-endpoints/{endpointId}',
    entry: 'functions/webhooks/get.ts',
    scope: 'webhooks:manage',
    summary: 'Read one webhook endpoint',
  },
  updateWebhookEndpoint: {
    name: 'update-webhook-endpoint',
    method: 'PATCH',
    path: '/webhook-endpoints/{endpointId}',
    entry: 'functions/webhooks/update.ts',
    scope: 'webhooks:manage',
    summary: "Change a webhook endpoint's URL, events, agents, metadata or status",
  },
  deleteWebhookEndpoint: {
    name: 'delete-webhook-endpoint',
    method: 'DELETE',
    path: '/webhook-endpoints/{endpointId}',
    entry: 'functions/webhooks/delete.ts',
    scope: 'webhooks:manage',
    summary: 'Delete a webhook endpoint and its delivery log',
  },
  rotateWebhookSecret: {
    name: 'rotate-webhook-secret',
    method: 'POST',
    path: '/webhook-endpoints/{endpointId}/secret/rotate',
    entry: 'functions/webhooks/rotate.ts',
    scope: 'webhooks:manage',
    summary: "Rotate an endpoint's signing secret, the old one signing too for a grace period",
  },
  testWebhookEndpoint: {
    name: 'test-webhook-endpoint',
    method: 'POST',
    path: '/webhook-endpoints/{endpointId}/test',
    entry: 'functions/webhooks/test.ts',
    scope: 'webhooks:manage',
    summary: 'Send a signed test delivery',
  },
  recoverWebhookEvents: {
    name: 'recover-webhook-events',
    method: 'POST',
    path: '/webhook-endpoints/{endpointId}/recover',
    entry: 'functions/webhooks/recover.ts',
    scope: 'webhooks:manage',
    summary: "Re-send a window's events that have no successful delivery yet, in feed order",
  },
  listWebhookDeliveries: {
    name: 'list-webhook-deliveries',
    method: 'GET',
    path: '/webhook-endpoints/{endpointId}/deliveries',
    entry: 'functions/webhooks/deliveries.ts',
    scope: 'webhooks:manage',
    summary: "An endpoint's deliveries, newest first",
  },
  getWebhookDelivery: {
    name: 'get-webhook-delivery',
    method: 'GET',
    path: '/webhook-deliveries/{deliveryId}',
    entry: 'functions/webhooks/delivery.ts',
    scope: 'webhooks:manage',
    summary: 'Read one delivery and its attempts',
  },
  redeliverWebhook: {
    name: 'redeliver-webhook',
    method: 'POST',
    path: '/webhook-deliveries/{deliveryId}/redeliver',
    entry: 'functions/webhooks/redeliver.ts',
    scope: 'webhooks:manage',
    summary: 'Send a delivery again, with the same webhook-id',
  },
} as const satisfies Record<string, Route>;

export const routeList: readonly Route[] = Object.values(routes);

/** API Gateway's route key form, e.g. `GET /sessions`. */
export const routeKey = (route: Pick<Route, 'method' | 'path'>) => `${route.method} ${route.path}`;

/** The bearer authorizer is not a route but is deployed the same way. */
export const authorizer = { name: 'authorizer', entry: 'functions/authorizer.ts' } as const;

/** Seconds API Gateway caches an authorizer answer per token; the local gateway uses the same. */
export const AUTHORIZER_CACHE_TTL_SECONDS = 60;
