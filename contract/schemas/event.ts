import * as v from 'valibot';
import { agentStatus, type eventTypes, ledgerReason, sessionStatus, sessionType } from '../enums.ts';
import { AGENT_NAME_MAX, AGENT_SLUG_MAX } from '../limits.ts';
import { Id, Int32, Ref, Timestamp, text } from './common.ts';
import { CompletedMeta } from './session.ts';

type EventType = (typeof eventTypes)[number];

/** What every agent event names: the agent as it is after the change (the whole agent is a GET away). */
const agentNamed = { agentId: Ref, name: text(AGENT_NAME_MAX), slug: text(AGENT_SLUG_MAX) };

/** `agent.created` (POST /agents): the agent and its version 1. */
export const AgentCreatedData = v.strictObject({ ...agentNamed, versionId: Ref });
/** `agent.published` (publish, a rollback too): the version published and the one it replaced (null: none). */
export const AgentPublishedData = v.strictObject({
  ...agentNamed,
  status: v.literal('PUBLISHED'),
  versionId: Ref,
  previousVersionId: v.nullable(Ref),
  publishedAt: Timestamp,
});
/** `agent.archived`. */
export const AgentArchivedData = v.strictObject({
  ...agentNamed,
  status: v.literal('ARCHIVED'),
  archivedAt: Timestamp,
});
/** `agent.unarchived`: the status it returned to. */
export const AgentUnarchivedData = v.strictObject({
  ...agentNamed,
  status: v.picklist(agentStatus.filter((s) => s !== 'ARCHIVED') as ['DRAFT', 'PUBLISHED', 'COMPLETED']),
});
/** `session.created`, `.started`, `.completed`: its ids, its status and the times that status set. */
export const SessionEventData = v.strictObject({
  sessionId: Ref,
  agentId: Ref,
  agentVersionId: Ref,
  personId: Ref,
  conversationId: Ref,
  type: v.picklist(sessionType),
  status: v.picklist(sessionStatus),
  startedAt: v.nullable(Timestamp),
  endedAt: v.nullable(Timestamp),
  completedAt: v.nullable(Timestamp),
  completedMeta: v.nullable(CompletedMeta),
});
/** `usage.booked`: a session's ledger entry. */
export const UsageBookedData = v.strictObject({
  ledgerEntryId: Ref,
  sessionId: Ref,
  agentId: Ref,
  amount: Int32,
  reason: v.picklist(ledgerReason),
});

/** `balance.low`: a booking took the workspace's balance from above its threshold to at or below it. */
export const BalanceLowData = v.strictObject({
  balance: v.pipe(v.number(), v.safeInteger()),
  threshold: Int32,
  lastEntryId: Ref,
});

/** `webhook_endpoint.disabled`: deliveries to the endpoint stopped (it answered 410, or failed for days). */
export const WebhookEndpointDisabledData = v.strictObject({
  endpointId: Ref,
  url: v.string(),
  reason: v.string(),
});

const dataOf = {
  'agent.created': AgentCreatedData,
  'agent.published': AgentPublishedData,
  'agent.archived': AgentArchivedData,
  'agent.unarchived': AgentUnarchivedData,
  'session.created': SessionEventData,
  'session.started': SessionEventData,
  'session.completed': SessionEventData,
  'usage.booked': UsageBookedData,
  'balance.low': BalanceLowData,
  'webhook_endpoint.disabled': WebhookEndpointDisabledData,
} satisfies Record<EventType, v.GenericSchema>;

/** The envelope of one type of event. */
const envelope = <T extends EventType>(type: T) =>
  v.strictObject({
    id: v.pipe(v.string(), v.uuid()),
    type: v.literal(type),
    occurredAt: Timestamp,
    workspaceId: Id,
    data: dataOf[type] as (typeof dataOf)[T],
  });

/**
 * An event as it leaves the system (GET /events, the EventBridge bus, and later signed webhooks):
 * a stable `id` to deduplicate by, what happened (`type`, which says what `data` holds), when, in
 * which workspace, and its `data`.
 */
export const Event = v.variant('type', [
  envelope('agent.created'),
  envelope('agent.published'),
  envelope('agent.archived'),
  envelope('agent.unarchived'),
  envelope('session.created'),
  envelope('session.started'),
  envelope('session.completed'),
  envelope('usage.booked'),
  envelope('balance.low'),
  envelope('webhook_endpoint.disabled'),
]);
export const EventList = v.array(Event);
export type Event = v.InferOutput<typeof Event>;
