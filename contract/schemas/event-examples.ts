import type * as v from 'valibot';
import type { eventTypes } from '../enums.ts';
import type {
  AgentArchivedData,
  AgentCreatedData,
  AgentPublishedData,
  AgentUnarchivedData,
  BalanceLowData,
  SessionEventData,
  UsageBookedData,
  WebhookEndpointDisabledData,
} from './event.ts';

type EventType = (typeof eventTypes)[number];

type DataOf = {
  'agent.created': v.InferOutput<typeof AgentCreatedData>;
  'agent.published': v.InferOutput<typeof AgentPublishedData>;
  'agent.archived': v.InferOutput<typeof AgentArchivedData>;
  'agent.unarchived': v.InferOutput<typeof AgentUnarchivedData>;
  'session.created': v.InferOutput<typeof SessionEventData>;
  'session.started': v.InferOutput<typeof SessionEventData>;
  'session.completed': v.InferOutput<typeof SessionEventData>;
  'usage.booked': v.InferOutput<typeof UsageBookedData>;
  'balance.low': v.InferOutput<typeof BalanceLowData>;
  'webhook_endpoint.disabled': v.InferOutput<typeof WebhookEndpointDisabledData>;
};

const agent = { agentId: 'exampleagent000000000001', name: 'Example agent', slug: 'example-agent' };
const session = {
  sessionId: 'examplesession0000000001',
  agentId: agent.agentId,
  agentVersionId: 'exampleversion0000000001',
  personId: 'exampleperson00000000001',
  conversationId: 'exampleconversation00001',
  type: 'WEB_VOICE',
} as const;

/**
 * One example `data` per event type, what a test delivery (POST /webhook-endpoints/{id}/test)
 * sends, so a receiver can exercise its parsing of each type. Plain values typed by the feed's
 * schemas (a type-only import: no function bundle carries the schemas); a test validates each.
 */
export const eventDataExamples: { [T in EventType]: DataOf[T] } = {
  'agent.created': { ...agent, versionId: 'exampleversion0000000001' },
  'agent.published': {
    ...agent,
    status: 'PUBLISHED',
    versionId: 'exampleversion0000000002',
    previousVersionId: 'exampleversion0000000001',
    publishedAt: '2026-01-01T00:00:00.000Z',
  },
  'agent.archived': { ...agent, status: 'ARCHIVED', archivedAt: '2026-01-01T00:00:00.000Z' },
  'agent.unarchived': { ...agent, status: 'PUBLISHED' },
  'session.created': {
    ...session,
    status: 'PENDING',
    startedAt: null,
    endedAt: null,
    completedAt: null,
    completedMeta: null,
  },
  'session.started': {
    ...session,
    status: 'IN_PROGRESS',
    startedAt: '2026-01-01T00:00:00.000Z',
    endedAt: null,
    completedAt: null,
    completedMeta: null,
  },
  'session.completed': {
    ...session,
    status: 'COMPLETED',
    startedAt: '2026-01-01T00:00:00.000Z',
    endedAt: '2026-01-01T00:05:00.000Z',
    completedAt: '2026-01-01T00:05:00.000Z',
    completedMeta: { traceId: 'example-trace-1' },
  },
  'usage.booked': {
    ledgerEntryId: 'exampleledgerentry000001',
    sessionId: session.sessionId,
    agentId: agent.agentId,
    amount: -120,
    reason: 'VOICE_USAGE',
  },
  'balance.low': { balance: 90, threshold: 100, lastEntryId: 'exampleledgerentry000001' },
  'webhook_endpoint.disabled': {
    endpointId: 'exampleendpoint000000001',
    url: 'https://hooks.example.com/voice-agents',
    reason: 'the endpoint answered 410 Gone',
  },
};
