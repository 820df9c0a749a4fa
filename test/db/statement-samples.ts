import { tiers } from '#contract/tiers.ts';
import type { Database, SqlRunner } from '#db/database.ts';
import {
  archiveAgent,
  createVersion,
  publishAgent,
  unarchiveAgent,
  updateAgent,
} from '#db/queries/agent-changes.ts';
import { pageAgentHistoryJson } from '#db/queries/agent-history.ts';
import { getAgentJson, pageAgentsJson } from '#db/queries/agents.ts';
import { authenticate } from '#db/queries/api-keys.ts';
import { completeSession } from '#db/queries/complete-session.ts';
import { createAgent } from '#db/queries/create-agent.ts';
import { createSession } from '#db/queries/create-session.ts';
import { claimUnpublished, markPublished, pageEvents, purgeEvents } from '#db/queries/events.ts';
import { claimKey, completeKey, releaseKey } from '#db/queries/idempotency.ts';
import {
  balanceForAdmission,
  bookCredit,
  getLedgerEntryJson,
  pageLedgerJson,
  readBalanceJson,
  usageReport,
} from '#db/queries/ledger.ts';
import { creditWorkspace, setLowBalanceThreshold } from '#db/queries/ledger-admin.ts';
import type { ListWindow } from '#db/queries/list-window.ts';
import { createApiKey, listApiKeys, revokeApiKey, revokeApiKeyOf } from '#db/queries/manage-api-keys.ts';
import {
  heartbeatSession,
  sessionJson,
  startSession,
  sweepStaleSessions,
  unchanged,
} from '#db/queries/session-writes.ts';
import { getSessionJson, pageSessionsJson } from '#db/queries/sessions.ts';
import { getConfigurationPair, getVersionJson, pageVersionsJson } from '#db/queries/versions.ts';
import {
  claimDue,
  databaseNow,
  dueForQueue,
  fanOut,
  getDelivery,
  pageDeliveries,
  queueRedelivery,
  queueTest,
  recordAttempt,
  recoverWindow,
  stillDue,
} from '#db/queries/webhook-deliveries.ts';
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  pageEndpoints,
  rotateSecret,
  updateEndpoint,
} from '#db/queries/webhook-endpoints.ts';
import { takeRequest } from '#db/queries/workspace-limits.ts';
import { setWorkspaceTier, workspaceTiersAfter } from '#db/queries/workspace-tiers.ts';
import {
  createWorkspace,
  listWorkspaces,
  oldestWorkspaceId,
  workspaceExists,
} from '#db/queries/workspaces.ts';
import { insertAgent, insertSession } from '#test/helpers/fixtures.ts';
import type { Samples } from '#test/helpers/schema-safety-net.ts';
import { createTenant, type Tenant } from '#test/helpers/tenants.ts';

/** What the samples run on: a workspace with its key, an agent with two versions, sessions in each state. */
export interface Seed {
  tenant: Tenant;
  agentId: string;
  versionIds: string[];
  pending: string;
  inProgress: string;
  completed: string;
}

export async function seed(db: Database): Promise<Seed> {
  const tenant = await createTenant(db);
  const { agentId, versionIds } = await insertAgent(db, tenant, { versions: 2 });
  const agent = { agentId, versionIds };
  const pending = await insertSession(db, tenant, agent, { n: 1, status: 'PENDING' });
  const inProgress = await insertSession(db, tenant, agent, { n: 2, status: 'IN_PROGRESS' });
  const completed = await insertSession(db, tenant, agent, { n: 3, status: 'COMPLETED', ledger: true });
  return {
    tenant,
    agentId,
    versionIds,
    pending: pending.sessionId,
    inProgress: inProgress.sessionId,
    completed: completed.sessionId,
  };
}

const caller = (s: Seed) => ({ workspaceId: s.tenant.workspaceId, keyId: s.tenant.keyId });
const changeOf = (s: Seed) => ({
  ...caller(s),
  agentId: s.agentId,
  principalId: s.tenant.principalId,
  ifMatch: undefined,
});
const cursor = { createdAt: '2026-11-01T09:00:00.000Z', id: 'x'.repeat(24) };
const WINDOWS: ListWindow[] = [
  { limit: 2, offset: 0 },
  { limit: 2, offset: 0, order: 'asc', after: cursor },
  { limit: 2, offset: 1 },
];
const later = '2030-01-01T00:00:00.000Z';

/** An endpoint of the seeded workspace, created in the sample's own transaction. */
const endpointIn = async (runner: SqlRunner, s: Seed, agentIds: string[] | null = null) => {
  const id = 'e'.repeat(24);
  await createEndpoint(runner, caller(s), {
    id,
    url: 'https://example.com/hook',
    description: 'd',
    enabledEvents: ['*'],
    agentIds,
    metadata: {},
    secretSealed: 's',
    principalId: s.tenant.principalId,
  });
  return id;
};
const missing = 'x'.repeat(24);

/**
 * Each function of db/queries that sends SQL, called once per variant of its statements (every
 * filter, a cursor both ways, the total): the safety net (test/db/statements.test.ts) runs these
 * and fails on a function of db/queries that has none.
 */
export const SAMPLES: Samples<Seed> = {
  'agent-changes.ts': {
    publishAgent: [({ runner, seed: s }) => publishAgent(runner, changeOf(s), s.versionIds[0] ?? '')],
    archiveAgent: [({ runner, seed: s }) => archiveAgent(runner, changeOf(s))],
    unarchiveAgent: [({ runner, seed: s }) => unarchiveAgent(runner, changeOf(s))],
    updateAgent: [
      ({ runner, seed: s }) => updateAgent(runner, changeOf(s), { name: 'n', description: null, slug: 's' }),
    ],
    createVersion: [
      ({ runner, seed: s }) =>
        createVersion(runner, changeOf(s), {
          sourceAgentVersionId: s.versionIds[0],
          config: null,
          systemPrompt: 'p',
          knowledgeBaseId: null,
          inputMode: ['WEB_VOICE'],
          followUp: true,
        }),
    ],
  },
  'agent-history.ts': {
    pageAgentHistoryJson: WINDOWS.map(
      (w) =>
        ({ runner, seed: s }) =>
          pageAgentHistoryJson(runner, caller(s), s.agentId, w, true),
    ),
  },
  'agents.ts': {
    pageAgentsJson: WINDOWS.map(
      (w) =>
        ({ runner, seed: s }) =>
          pageAgentsJson(runner, caller(s), w, { status: ['DRAFT'], slug: 'x', q: 'a' }, true),
    ),
    getAgentJson: [({ runner, seed: s }) => getAgentJson(runner, caller(s), s.agentId)],
  },
  'api-keys.ts': {
    authenticate: [({ runner, seed: s }) => authenticate(runner, s.tenant.token)],
  },
  'complete-session.ts': {
    completeSession: [
      ({ runner, seed: s }) =>
        completeSession(runner, caller(s), s.inProgress, {
          endedAt: null,
          traceId: 't',
          usage: { amount: -1 },
          principalId: s.tenant.principalId,
        }),
    ],
  },
  'create-agent.ts': {
    createAgent: [
      ({ runner, seed: s }) =>
        createAgent(runner, {
          ...caller(s),
          principalId: s.tenant.principalId,
          name: 'n',
          description: null,
          slug: { derivedFrom: 'n' },
          version: {
            config: null,
            systemPrompt: null,
            knowledgeBaseId: null,
            inputMode: ['WEB_VOICE'],
            followUp: false,
          },
        }),
    ],
  },
  'create-session.ts': {
    createSession: [
      ({ runner, seed: s }) =>
        createSession(runner, {
          ...caller(s),
          agentId: s.agentId,
          agentVersionId: s.versionIds[0] ?? null,
          type: 'WEB_VOICE',
          name: null,
          recordAudio: false,
          person: { email: 'a@example.com', phone: '+14155550100', properties: {} },
        }),
    ],
  },
  'events.ts': {
    pageEvents: [
      ({ runner, seed: s }) => pageEvents(runner, caller(s), { txid: 1, seq: 1 }, ['agent.created'], 2),
    ],
    claimUnpublished: [({ runner }) => claimUnpublished(runner, 2)],
    markPublished: [({ runner }) => markPublished(runner, ['1'])],
    purgeEvents: [({ runner }) => purgeEvents(runner, 2)],
  },
  'idempotency.ts': {
    claimKey: [({ runner, seed: s }) => claimKey(runner, caller(s), 'k', 'h')],
    completeKey: [
      ({ runner, seed: s }) => completeKey(runner, s.tenant.workspaceId, 'k', 200, '{}', { etag: 'e' }),
    ],
    releaseKey: [({ runner, seed: s }) => releaseKey(runner, s.tenant.workspaceId, 'k')],
  },
  'ledger.ts': {
    pageLedgerJson: WINDOWS.map(
      (w) =>
        ({ runner, seed: s }) =>
          pageLedgerJson(
            runner,
            caller(s),
            {
              reason: ['VOICE_USAGE'],
              agentId: [s.agentId],
              sessionId: [s.completed],
              createdAfter: cursor.createdAt,
              createdBefore: later,
            },
            w,
            true,
          ),
    ),
    getLedgerEntryJson: [({ runner, seed: s }) => getLedgerEntryJson(runner, caller(s), 'x'.repeat(24))],
    readBalanceJson: [({ runner, seed: s }) => readBalanceJson(runner, caller(s))],
    balanceForAdmission: [({ runner, seed: s }) => balanceForAdmission(runner, s.tenant.workspaceId)],
    bookCredit: [
      ({ runner, seed: s }) =>
        bookCredit(runner, caller(s), {
          amount: 1,
          reason: 'PURCHASE_REFILL',
          reasonDetails: null,
          redemptionCodeId: null,
          idempotencyKey: 'k',
          principalId: s.tenant.principalId,
        }),
    ],
    usageReport: (['day', 'agent', 'reason'] as const).map(
      (groupBy) =>
        ({ runner, seed: s }) =>
          // Kolkata in 1880, an offset in seconds: the entries are read for the quarter-hours its
          // midnights cut, the rollups for the others.
          usageReport(runner, caller(s), {
            from: '1880-03-01',
            to: '1880-03-02',
            timezone: 'Asia/Kolkata',
            groupBy,
          }),
    ),
  },
  'list-window.ts': {
    // Runs the page statement its caller built: every list's, e.g. the agents'.
    runPage: [({ runner, seed: s }) => pageAgentsJson(runner, caller(s), WINDOWS[0] as ListWindow)],
  },
  'ledger-admin.ts': {
    creditWorkspace: [
      ({ db, seed: s }) =>
        creditWorkspace(db, {
          workspaceId: s.tenant.workspaceId,
          amount: 1,
          reason: 'PURCHASE_REFILL',
          reasonDetails: null,
          idempotencyKey: 'k',
        }),
    ],
    setLowBalanceThreshold: [({ db, seed: s }) => setLowBalanceThreshold(db, s.tenant.workspaceId, 1)],
  },
  'manage-api-keys.ts': {
    createApiKey: [
      ({ db, seed: s }) => createApiKey(db, { workspaceId: s.tenant.workspaceId, name: 'k', scopes: [] }),
    ],
    listApiKeys: [({ db, seed: s }) => listApiKeys(db, s.tenant.workspaceId)],
    revokeApiKeyOf: [({ db, seed: s }) => revokeApiKeyOf(db, s.tenant.keyId)],
    revokeApiKey: [({ db, seed: s }) => revokeApiKey(db, s.tenant.keyId)],
  },
  'session-writes.ts': {
    sessionJson: [({ runner, seed: s }) => sessionJson(runner, caller(s), s.completed)],
    unchanged: [({ runner, seed: s }) => unchanged(runner, caller(s), s.completed, 'COMPLETED')],
    startSession: [({ runner, seed: s }) => startSession(runner, caller(s), s.pending)],
    heartbeatSession: [
      ({ runner, seed: s }) => heartbeatSession(runner, caller(s), s.inProgress),
      // Refused: the second statement reads why.
      ({ runner, seed: s }) => heartbeatSession(runner, caller(s), s.pending),
    ],
    sweepStaleSessions: [({ runner }) => sweepStaleSessions(runner)],
  },
  'sessions.ts': {
    pageSessionsJson: WINDOWS.map(
      (w) =>
        ({ runner, seed: s }) =>
          pageSessionsJson(
            runner,
            caller(s),
            w,
            {
              agentId: [s.agentId],
              agentVersionId: s.versionIds,
              personId: ['p'],
              conversationId: ['c'],
              status: ['PENDING'],
              type: ['WEB_VOICE'],
              createdAfter: cursor.createdAt,
              createdBefore: later,
              hasLedger: w.after === undefined,
            },
            true,
          ),
    ),
    getSessionJson: [({ runner, seed: s }) => getSessionJson(runner, caller(s), s.completed)],
  },
  'versions.ts': {
    pageVersionsJson: [
      ...WINDOWS,
      { limit: 2, offset: 0, after: { createdAt: cursor.createdAt, id: 'x'.repeat(24) } } as ListWindow,
    ].map(
      (w) =>
        ({ runner, seed: s }) =>
          pageVersionsJson(runner, caller(s), s.agentId, w, true),
    ),
    getVersionJson: [
      ({ runner, seed: s }) => getVersionJson(runner, caller(s), s.agentId, s.versionIds[0] ?? ''),
    ],
    getConfigurationPair: [
      ({ runner, seed: s }) =>
        getConfigurationPair(runner, caller(s), s.agentId, s.versionIds[0] ?? '', s.versionIds[1] ?? ''),
    ],
  },
  'webhook-deliveries.ts': {
    fanOut: [({ runner }) => fanOut(runner, ['1', '2'])],
    claimDue: [
      ({ runner }) => claimDue(runner, 10, 2, 30_000),
      ({ runner }) => claimDue(runner, 10, 2, 30_000, ['wnone1', 'wnone2']),
    ],
    stillDue: [({ runner }) => stillDue(runner, ['wnone1', 'wnone2'])],
    dueForQueue: [({ runner }) => dueForQueue(runner, 100, 60_000, 60_000)],
    // The outcomes differ in parameters only: a success, a retry, no retry left.
    recordAttempt: (
      [{ kind: 'succeeded' }, { kind: 'retry', retryInMs: 5000 }, { kind: 'dead' }] as const
    ).map(
      (outcome) =>
        ({ runner }) =>
          recordAttempt(
            runner,
            { id: missing, endpointId: missing },
            { statusCode: 500, durationMs: 1, response: 'r', error: null, outcome },
          ),
    ),
    databaseNow: [({ runner }) => databaseNow(runner)],
    queueTest: [
      async ({ runner, seed: s }) =>
        queueTest(runner, caller(s), await endpointIn(runner, s), 'agent.created', { agentId: 'a' }),
    ],
    queueRedelivery: [({ runner, seed: s }) => queueRedelivery(runner, caller(s), missing)],
    recoverWindow: [
      async ({ runner, seed: s }) =>
        recoverWindow(runner, caller(s), await endpointIn(runner, s, [s.agentId]), cursor.createdAt, later),
      ({ runner, seed: s }) => recoverWindow(runner, caller(s), missing, cursor.createdAt, undefined),
    ],
    pageDeliveries: [
      ...WINDOWS.map(
        (w) =>
          async ({ runner, seed: s }: { runner: SqlRunner; seed: Seed }) =>
            pageDeliveries(
              runner,
              caller(s),
              await endpointIn(runner, s),
              { status: ['failed', 'dead'], eventType: ['agent.created'], since: cursor.createdAt },
              w,
              true,
            ),
      ),
      ({ runner, seed: s }) => pageDeliveries(runner, caller(s), missing, {}, WINDOWS[0] as ListWindow),
    ],
    getDelivery: [({ runner, seed: s }) => getDelivery(runner, caller(s), missing)],
  },
  'webhook-endpoints.ts': {
    createEndpoint: [
      ({ runner, seed: s }) => endpointIn(runner, s),
      ({ runner, seed: s }) => endpointIn(runner, s, [s.agentId]),
    ],
    getEndpoint: [({ runner, seed: s }) => getEndpoint(runner, caller(s), missing)],
    pageEndpoints: WINDOWS.map(
      (w) =>
        ({ runner, seed: s }) =>
          pageEndpoints(runner, caller(s), w, true),
    ),
    updateEndpoint: [
      async ({ runner, seed: s }) =>
        updateEndpoint(runner, caller(s), await endpointIn(runner, s), undefined, {
          url: 'https://example.com/other',
          description: 'e',
          enabledEvents: ['agent.created'],
          agentIds: [s.agentId],
          metadata: { a: 1 },
          status: 'enabled',
          principalId: s.tenant.principalId,
        }),
      async ({ runner, seed: s }) =>
        updateEndpoint(runner, caller(s), await endpointIn(runner, s), ['"x"'], {
          agentIds: null,
          status: 'disabled',
          principalId: s.tenant.principalId,
        }),
    ],
    deleteEndpoint: [
      async ({ runner, seed: s }) =>
        deleteEndpoint(runner, caller(s), await endpointIn(runner, s), undefined),
      ({ runner, seed: s }) => deleteEndpoint(runner, caller(s), missing, ['"x"']),
    ],
    rotateSecret: [
      async ({ runner, seed: s }) =>
        rotateSecret(runner, caller(s), await endpointIn(runner, s), 's2', 3600, s.tenant.principalId),
    ],
  },
  'workspace-limits.ts': {
    // A first request (the insert) and a second one (the update of the same row).
    takeRequest: [
      ({ runner, seed: s }) => takeRequest(runner, s.tenant.workspaceId, tiers.standard),
      ({ runner, seed: s }) => takeRequest(runner, s.tenant.workspaceId, tiers.standard),
    ],
  },
  'workspace-tiers.ts': {
    setWorkspaceTier: [({ db, seed: s }) => setWorkspaceTier(db, s.tenant.workspaceId, 'pro')],
    workspaceTiersAfter: [({ db }) => workspaceTiersAfter(db, '', 10)],
  },
  'workspaces.ts': {
    createWorkspace: [({ db }) => createWorkspace(db, 'w')],
    oldestWorkspaceId: [({ db }) => oldestWorkspaceId(db)],
    listWorkspaces: [({ db }) => listWorkspaces(db)],
    workspaceExists: [({ db, seed: s }) => workspaceExists(db, s.tenant.workspaceId)],
  },
};
