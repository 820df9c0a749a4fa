import { getTableName, sql } from 'drizzle-orm';
import * as v from 'valibot';
import type { routes } from '#contract/routes.ts';
import { Agent, AgentList, AgentVersion, AgentVersionList } from '#contract/schemas/agent.ts';
import { AgentChangeList } from '#contract/schemas/agent-change.ts';
import { EventList } from '#contract/schemas/event.ts';
import { JsonPatch } from '#contract/schemas/json-patch.ts';
import { Balance, LedgerEntryList, UsageReport } from '#contract/schemas/ledger.ts';
import { Problem } from '#contract/schemas/problem.ts';
import { LedgerEntry, Session, SessionList } from '#contract/schemas/session.ts';
import {
  WebhookDelivery,
  WebhookDeliveryDetail,
  WebhookDeliveryList,
  WebhookEndpoint,
  WebhookEndpointList,
  WebhookEndpointWithSecret,
  WebhookRecovery,
} from '#contract/schemas/webhook.ts';
import type { Database } from '#db/client.ts';
import { rowsOf } from '#db/queries/rows.ts';
import { apiKeys } from '#db/schema/index.ts';
import { build as buildArchiveAgent } from '#functions/agents/archive.ts';
import { build as buildCreateAgent } from '#functions/agents/create.ts';
import { build as buildGetAgent } from '#functions/agents/get.ts';
import { build as buildAgentHistory } from '#functions/agents/history.ts';
import { build as buildListAgents } from '#functions/agents/list.ts';
import { build as buildPublishAgent } from '#functions/agents/publish.ts';
import { build as buildUnarchiveAgent } from '#functions/agents/unarchive.ts';
import { build as buildUpdateAgent } from '#functions/agents/update.ts';
import { build as buildAuthorizer } from '#functions/authorizer.ts';
import type { Deps } from '#functions/deps.ts';
import { build as buildListEvents } from '#functions/events/list.ts';
import type { ApiResult } from '#functions/http/types.ts';
import { build as buildGetBalance } from '#functions/ledger/balance.ts';
import { build as buildCreateCredit } from '#functions/ledger/credit.ts';
import { build as buildGetLedgerEntry } from '#functions/ledger/get.ts';
import { build as buildListLedger } from '#functions/ledger/list.ts';
import { build as buildGetUsage } from '#functions/ledger/usage.ts';
import { build as buildCompleteSession } from '#functions/sessions/complete.ts';
import { build as buildCreateSession } from '#functions/sessions/create.ts';
import { build as buildGetSession } from '#functions/sessions/get.ts';
import { build as buildHeartbeatSession } from '#functions/sessions/heartbeat.ts';
import { build as buildListSessions } from '#functions/sessions/list.ts';
import { build as buildStartSession } from '#functions/sessions/start.ts';
import { build as buildCreateVersion } from '#functions/versions/create.ts';
import { build as buildDiffVersions } from '#functions/versions/diff.ts';
import { build as buildGetVersion } from '#functions/versions/get.ts';
import { build as buildListVersions } from '#functions/versions/list.ts';
import { build as buildCreateWebhookEndpoint } from '#functions/webhooks/create.ts';
import { build as buildDeleteWebhookEndpoint } from '#functions/webhooks/delete.ts';
import { build as buildListWebhookDeliveries } from '#functions/webhooks/deliveries.ts';
import { build as buildGetWebhookDelivery } from '#functions/webhooks/delivery.ts';
import { build as buildGetWebhookEndpoint } from '#functions/webhooks/get.ts';
import { build as buildListWebhookEndpoints } from '#functions/webhooks/list.ts';
import { build as buildRecoverWebhookEvents } from '#functions/webhooks/recover.ts';
import { build as buildRedeliverWebhook } from '#functions/webhooks/redeliver.ts';
import { build as buildRotateWebhookSecret } from '#functions/webhooks/rotate.ts';
import { build as buildTestWebhookEndpoint } from '#functions/webhooks/test.ts';
import { build as buildUpdateWebhookEndpoint } from '#functions/webhooks/update.ts';
import { type RouteKey, routeKeys } from '#test/helpers/route-requests.ts';
import { WRITTEN } from '#test/helpers/table-states.ts';

/** The deployed handlers and the authorizer, built over one set of dependencies. */
export function buildApp(deps: Deps) {
  return {
    createAgent: buildCreateAgent(deps),
    getAgent: buildGetAgent(deps),
    listAgents: buildListAgents(deps),
    listSessions: buildListSessions(deps),
    listVersions: buildListVersions(deps),
    getVersion: buildGetVersion(deps),
    diffVersions: buildDiffVersions(deps),
    getSession: buildGetSession(deps),
    createVersion: buildCreateVersion(deps),
    updateAgent: buildUpdateAgent(deps),
    publishAgent: buildPublishAgent(deps),
    archiveAgent: buildArchiveAgent(deps),
    unarchiveAgent: buildUnarchiveAgent(deps),
    agentHistory: buildAgentHistory(deps),
    createSession: buildCreateSession(deps),
    startSession: buildStartSession(deps),
    heartbeatSession: buildHeartbeatSession(deps),
    completeSession: buildCompleteSession(deps),
    listEvents: buildListEvents(deps),
    listLedger: buildListLedger(deps),
    getLedgerEntry: buildGetLedgerEntry(deps),
    createCredit: buildCreateCredit(deps),
    getBalance: buildGetBalance(deps),
    getUsage: buildGetUsage(deps),
    createWebhookEndpoint: buildCreateWebhookEndpoint(deps),
    listWebhookEndpoints: buildListWebhookEndpoints(deps),
    getWebhookEndpoint: buildGetWebhookEndpoint(deps),
    updateWebhookEndpoint: buildUpdateWebhookEndpoint(deps),
    deleteWebhookEndpoint: buildDeleteWebhookEndpoint(deps),
    rotateWebhookSecret: buildRotateWebhookSecret(deps),
    testWebhookEndpoint: buildTestWebhookEndpoint(deps),
    recoverWebhookEvents: buildRecoverWebhookEvents(deps),
    listWebhookDeliveries: buildListWebhookDeliveries(deps),
    getWebhookDelivery: buildGetWebhookDelivery(deps),
    redeliverWebhook: buildRedeliverWebhook(deps),
    authorize: buildAuthorizer(deps),
  };
}
export type App = ReturnType<typeof buildApp>;

/** A route's stable name (`create-agent`…), as in the route table. */
export type RouteName = (typeof routes)[keyof typeof routes]['name'];

/** What each route answers with on success; a route of the table missing here fails `tsc`. */
export const successSchema = {
  'create-agent': Agent,
  'get-agent': Agent,
  'list-agents': AgentList,
  'list-sessions': SessionList,
  'list-versions': AgentVersionList,
  'get-version': AgentVersion,
  'diff-versions': JsonPatch,
  'get-session': Session,
  'create-version': AgentVersion,
  'update-agent': Agent,
  'publish-agent': Agent,
  'archive-agent': Agent,
  'unarchive-agent': Agent,
  'agent-history': AgentChangeList,
  'create-session': Session,
  'start-session': Session,
  // 204: no body at all.
  'heartbeat-session': null,
  'complete-session': Session,
  'list-events': EventList,
  'list-ledger': LedgerEntryList,
  'get-ledger-entry': LedgerEntry,
  'create-credit': LedgerEntry,
  'get-balance': Balance,
  'get-usage': UsageReport,
  'create-webhook-endpoint': WebhookEndpointWithSecret,
  'list-webhook-endpoints': WebhookEndpointList,
  'get-webhook-endpoint': WebhookEndpoint,
  'update-webhook-endpoint': WebhookEndpoint,
  // 204: no body at all.
  'delete-webhook-endpoint': null,
  'rotate-webhook-secret': WebhookEndpointWithSecret,
  'test-webhook-endpoint': WebhookDelivery,
  'recover-webhook-events': WebhookRecovery,
  'list-webhook-deliveries': WebhookDeliveryList,
  'get-webhook-delivery': WebhookDeliveryDetail,
  'redeliver-webhook': WebhookDelivery,
} as const satisfies Record<RouteName, v.GenericSchema | null>;

/** Every table a request could write to (test/helpers/table-states.ts), and the API keys: no route may make one. */
const COUNTED = [...WRITTEN, apiKeys] as const;
export type RowCounts = Record<(typeof COUNTED)[number]['_']['name'], number>;

/** Rows in every table a request could write to, in one statement. */
export async function rowCounts(db: Database): Promise<RowCounts> {
  const columns = COUNTED.map((table) => {
    const name = sql.identifier(getTableName(table));
    return sql`(select count(*)::int from ${name}) as ${name}`;
  });
  const [row] = rowsOf<RowCounts>(await db.execute(sql`select ${sql.join(columns, sql`, `)}`));
  if (!row) throw new Error('no counts');
  return row;
}

/** Text that must never reach a client: stack frames, SQL, driver and library names. */
const LEAK =
  /\bat [\w.<>]+ \(|\bat file:|node:internal|\.ts:\d+|\bselect\b.*\bfrom\b|\binsert into\b|\bupdate \w+ set\b|postgres|drizzle|pglite|PostgresError|SQLSTATE|violates|constraint "|relation "|ECONN|CONNECTION_|syntax error/i;

export class InvariantError extends Error {
  override name = 'InvariantError';
}

const fail = (message: string, result: ApiResult): never => {
  throw new InvariantError(
    `${message}\n  status ${result.statusCode} ${JSON.stringify(result.headers)}\n  ${result.body.slice(0, 600)}`,
  );
};

/**
 * The invariants every answer of a handler keeps, whatever was sent: never a 5xx (unless
 * `allow503`, for fault tests: then only a 503 problem with Retry-After), the security headers,
 * a request id, a 2xx body that matches the route's response schema, and a 4xx problem+json that
 * names what was wrong (a validation problem lists the offending fields) and leaks nothing.
 */
export function checkAnswer(route: RouteName, result: ApiResult, options: { allow503?: boolean } = {}) {
  const { statusCode: status, headers } = result;
  if (headers['cache-control'] !== 'no-store') fail('cache-control is not no-store', result);
  if (headers['x-content-type-options'] !== 'nosniff') fail('x-content-type-options is not nosniff', result);
  if (!headers['x-request-id']) fail('no x-request-id', result);
  const schema = successSchema[route];
  if (status === 204 && schema === null) {
    if (result.body !== '') fail('a 204 with a body', result);
    return { status, body: undefined };
  }
  if (status >= 200 && status < 300) {
    if (schema === null) fail('a success other than 204 from a route that answers none', result);
    const mediaType = route === 'diff-versions' ? 'application/json-patch+json' : 'application/json';
    if (headers['content-type'] !== mediaType) fail(`2xx is not ${mediaType}`, result);
    const parsed = v.safeParse(schema as v.GenericSchema, JSON.parse(result.body));
    if (!parsed.success)
      fail(`2xx body does not match its schema: ${JSON.stringify(v.flatten(parsed.issues))}`, result);
    return { status, body: JSON.parse(result.body) as unknown };
  }
  if (status >= 500 && !(options.allow503 && status === 503)) fail('a 5xx', result);
  if (status < 400) fail('neither success nor problem', result);
  if (headers['content-type'] !== 'application/problem+json')
    fail('error is not application/problem+json', result);
  const parsed = v.safeParse(Problem, JSON.parse(result.body));
  if (!parsed.success) fail('problem body does not match the Problem schema', result);
  const problem = parsed.output as Problem;
  if (problem.status !== status) fail('problem status differs from the HTTP status', result);
  if (problem.requestId !== headers['x-request-id'])
    fail('problem requestId differs from x-request-id', result);
  if (!problem.type.startsWith('https://voice-agent-admin.dev/problems/'))
    fail('problem type is not ours', result);
  if (problem.detail.trim().length === 0) fail('problem has no detail', result);
  if (LEAK.test(result.body)) fail('problem leaks internals', result);
  if (status === 503 && !/^\d+$/.test(headers['retry-after'] ?? '')) fail('503 without Retry-After', result);
  if (status === 400 && problem.type.endsWith('/validation')) {
    const errors = problem.errors ?? [];
    if (errors.length === 0) fail('a validation problem that names no field', result);
    for (const e of errors) if (!e.path || !e.message) fail('a field error without path or message', result);
  }
  return { status, body: problem as unknown, problem };
}

/** Counts of what a fuzz run saw, printed once per file for the closing figures. */
export class Tally {
  cases = 0;
  readonly statuses = new Map<number, number>();
  readonly rejected = new Set<string>();

  constructor(readonly name: string) {}

  record(status: number, input: unknown) {
    this.cases++;
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
    if (status >= 400) this.rejected.add(typeof input === 'string' ? input : JSON.stringify(input));
  }

  report() {
    const statuses = Object.fromEntries([...this.statuses].sort(([a], [b]) => a - b));
    console.info(
      `[fuzz] ${this.name}: ${this.cases} cases, ${this.rejected.size} distinct rejected inputs, statuses ${JSON.stringify(statuses)}`,
    );
  }
}

/** `FUZZ_RUNS` scales every property (default 1: the CI budget); `FUZZ_SEED` replays a run. */
export const fuzzScale = Number(process.env.FUZZ_RUNS ?? 1) || 1;
export const fuzzSeed = Number(process.env.FUZZ_SEED ?? 20261101);
export const runs = (base: number) => Math.max(1, Math.round(base * fuzzScale));
/** A seed per route of the table, so that each route meets other cases (a run still replays by FUZZ_SEED). */
export const routeSeed = (key: RouteKey) => fuzzSeed + routeKeys.indexOf(key);
