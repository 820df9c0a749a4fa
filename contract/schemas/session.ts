import * as v from 'valibot';
import { completionReasons, ledgerReason, sessionStatus, sessionType } from '../enums.ts';
import { Agent } from './agent.ts';
import { auditActors, auditTimes, E164, FreeFormObject, Id, Int32, Ref, Timestamp, text } from './common.ts';

export const Conversation = v.strictObject({
  id: Id,
  ...auditTimes,
  workspaceId: Id,
  personId: Ref,
  name: text(255),
  isDemo: v.boolean(),
  lastViewedAt: v.nullable(Timestamp),
  lastViewedBy: v.nullable(Id),
  lastSessionEndedAt: v.nullable(Timestamp),
  archivedAt: v.nullable(Timestamp),
  archivedBy: v.nullable(Id),
});

export const Person = v.strictObject({
  id: Id,
  ...auditTimes,
  workspaceId: Id,
  properties: FreeFormObject,
  firstSeenAt: Timestamp,
  lastSeenAt: Timestamp,
  identifiedAt: v.nullable(Timestamp),
  deletedAt: v.nullable(Timestamp),
  email: v.nullable(v.pipe(v.string(), v.maxLength(255), v.email())),
  phone: v.nullable(v.pipe(v.string(), v.regex(E164))),
  rootPersonId: Id,
  mergedBy: v.nullable(Id),
  mergedAt: v.nullable(Timestamp),
  mergeMeta: FreeFormObject,
});

export const LedgerEntry = v.strictObject({
  id: Id,
  ...auditTimes,
  ...auditActors,
  workspaceId: Ref,
  amount: Int32,
  reason: v.picklist(ledgerReason),
  reasonDetails: v.nullable(text(255)),
  redemptionCodeId: v.nullable(Ref),
  agentId: v.nullable(Ref),
  sessionId: v.nullable(Ref),
  idempotencyKey: v.nullable(text(255)),
});

/** How a session was completed: `{ traceId }` (the runtime's) or `{ reason }` (the stale-session sweep's). */
export const CompletedMeta = v.strictObject({
  traceId: v.optional(v.string()),
  reason: v.optional(v.picklist(completionReasons)),
});

export const Session = v.strictObject({
  id: Id,
  ...auditTimes,
  name: text(255),
  type: v.picklist(sessionType),
  status: v.picklist(sessionStatus),
  completedAt: v.nullable(Timestamp),
  lastHeartbeatAt: v.nullable(Timestamp),
  startedAt: v.nullable(Timestamp),
  endedAt: v.nullable(Timestamp),
  recordAudio: v.boolean(),
  isDemo: v.boolean(),
  agentId: Ref,
  agentVersionId: Ref,
  workspaceId: Id,
  personId: Ref,
  conversationId: Ref,
  /** `{ traceId }` from the runtime that completed it, or `{ reason }` when the stale-session sweep did. */
  completedMeta: v.nullable(CompletedMeta),
  /** The agent with the version this session ran on (`agentVersionId`). */
  agent: Agent,
  conversation: Conversation,
  person: Person,
  ledger: v.nullable(LedgerEntry),
});

export const SessionList = v.array(Session);

export type Session = v.InferOutput<typeof Session>;
export type Person = v.InferOutput<typeof Person>;
export type Conversation = v.InferOutput<typeof Conversation>;
export type LedgerEntry = v.InferOutput<typeof LedgerEntry>;
