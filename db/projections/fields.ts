import type { PgTable } from 'drizzle-orm/pg-core';
import { type Agent, type AgentVersion, VERSION_CONFIGURATION_FIELDS } from '#contract/schemas/agent.ts';
import type { AgentChange } from '#contract/schemas/agent-change.ts';
import type { Conversation, LedgerEntry, Person, Session } from '#contract/schemas/session.ts';
import type {
  agentChanges,
  agents,
  agentVersions,
  conversations,
  ledgerEntries,
  persons,
  sessions,
} from '../schema/index.ts';
import type { FieldOf } from './json.ts';

/**
 * The columns each response shows, by name and in answer order (the table's column order, so the
 * documents are what they were when every column was shown). Explicit on purpose: adding a column
 * to a table changes no answer until it is listed here and in the response schema in contract/.
 * Each list is checked against both: a name must be a column and a field of the response type.
 */
type Fields<T extends PgTable, R> = readonly (FieldOf<T> & keyof R)[];

export const SESSION_FIELDS = [
  'id',
  'createdAt',
  'updatedAt',
  'name',
  'type',
  'status',
  'completedAt',
  'lastHeartbeatAt',
  'startedAt',
  'endedAt',
  'recordAudio',
  'isDemo',
  'agentId',
  'agentVersionId',
  'workspaceId',
  'personId',
  'conversationId',
  'completedMeta',
] as const satisfies Fields<typeof sessions, Session>;

export const AGENT_FIELDS = [
  'id',
  'createdAt',
  'updatedAt',
  'createdBy',
  'updatedBy',
  'workspaceId',
  'publishedVersionId',
  'name',
  'description',
  'slug',
  'status',
  'sourceTemplateId',
  'archivedAt',
  'archivedBy',
  'completedAt',
  'completedBy',
  'publishedAt',
  'publishedBy',
] as const satisfies Fields<typeof agents, Agent>;

export const AGENT_VERSION_FIELDS = [
  'id',
  'createdAt',
  'updatedAt',
  'createdBy',
  'updatedBy',
  'agentId',
  'version',
  'workspaceId',
  'sourceAgentVersionId',
  // What the version configures, as the diff compares it: one list (contract/schemas/agent.ts).
  ...VERSION_CONFIGURATION_FIELDS,
] as const satisfies Fields<typeof agentVersions, AgentVersion>;

export const CONVERSATION_FIELDS = [
  'id',
  'createdAt',
  'updatedAt',
  'workspaceId',
  'personId',
  'name',
  'isDemo',
  'lastViewedAt',
  'lastViewedBy',
  'lastSessionEndedAt',
  'archivedAt',
  'archivedBy',
] as const satisfies Fields<typeof conversations, Conversation>;

export const PERSON_FIELDS = [
  'id',
  'createdAt',
  'updatedAt',
  'workspaceId',
  'properties',
  'firstSeenAt',
  'lastSeenAt',
  'identifiedAt',
  'deletedAt',
  'email',
  'phone',
  'rootPersonId',
  'mergedBy',
  'mergedAt',
  'mergeMeta',
] as const satisfies Fields<typeof persons, Person>;

export const LEDGER_ENTRY_FIELDS = [
  'id',
  'createdAt',
  'updatedAt',
  'createdBy',
  'updatedBy',
  'workspaceId',
  'amount',
  'reason',
  'reasonDetails',
  'redemptionCodeId',
  'agentId',
  'sessionId',
  'idempotencyKey',
] as const satisfies Fields<typeof ledgerEntries, LedgerEntry>;

export const AGENT_CHANGE_FIELDS = [
  'id',
  'createdAt',
  'workspaceId',
  'agentId',
  'agentVersionId',
  'operation',
  'principalId',
  'keyId',
  'etagBefore',
  'etagAfter',
] as const satisfies Fields<typeof agentChanges, AgentChange>;
