import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  foreignKey,
  index,
  jsonb,
  pgTable,
  unique,
  uniqueIndex,
  varchar,
} from 'drizzle-orm/pg-core';
import { agents, agentVersions } from './agents.ts';
import { auditActors, auditTimes, id, int32, primaryId, timestamptz } from './columns.ts';
import { ledgerReason, sessionStatus, sessionType } from './enums.ts';
import { conversations, persons } from './people.ts';
import { workspaces } from './workspaces.ts';

export const sessions = pgTable(
  'sessions',
  {
    id: primaryId(),
    ...auditTimes(),
    name: varchar('name', { length: 255 }).notNull(),
    type: sessionType('type').notNull(),
    status: sessionStatus('status').notNull().default('PENDING'),
    completedAt: timestamptz('completed_at'),
    lastHeartbeatAt: timestamptz('last_heartbeat_at'),
    startedAt: timestamptz('started_at'),
    endedAt: timestamptz('ended_at'),
    recordAudio: boolean('record_audio').notNull().default(false),
    isDemo: boolean('is_demo').notNull().default(false),
    agentId: id('agent_id').notNull(),
    agentVersionId: id('agent_version_id').notNull(),
    workspaceId: id('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    personId: id('person_id').notNull(),
    conversationId: id('conversation_id').notNull(),
    completedMeta: jsonb('completed_meta').$type<{ traceId?: string; reason?: string } | null>(),
  },
  (t) => [
    unique('sessions_workspace_id').on(t.workspaceId, t.id),
    foreignKey({
      name: 'sessions_agent_fk',
      columns: [t.workspaceId, t.agentId],
      foreignColumns: [agents.workspaceId, agents.id],
    }),
    // The version a session ran on belongs to the session's agent.
    foreignKey({
      name: 'sessions_agent_version_fk',
      columns: [t.agentId, t.agentVersionId],
      foreignColumns: [agentVersions.agentId, agentVersions.id],
    }),
    foreignKey({
      name: 'sessions_person_fk',
      columns: [t.workspaceId, t.personId],
      foreignColumns: [persons.workspaceId, persons.id],
    }),
    foreignKey({
      name: 'sessions_conversation_fk',
      columns: [t.workspaceId, t.conversationId],
      foreignColumns: [conversations.workspaceId, conversations.id],
    }),
    // Serves GET /sessions: newest first, stable under ties (scanned backwards for `order=asc`).
    index('sessions_workspace_created').on(
      t.workspaceId,
      t.createdAt.desc().nullsFirst(),
      t.id.desc().nullsFirst(),
    ),
    // The stale-session sweep's scan: only sessions not yet completed, by their last sign of life.
    index('sessions_open_last_seen')
      .on(sql`coalesce(${t.lastHeartbeatAt}, ${t.createdAt})`)
      .where(sql`${t.status} <> 'COMPLETED'`),
    // Serves the version foreign key when an agent version is deleted (else a scan of every session).
    index('sessions_agent_version').on(t.agentId, t.agentVersionId),
    // One per equality filter, in list order, so a filtered page is still an index range, not a sort.
    ...(['agentId', 'agentVersionId', 'personId', 'conversationId', 'status'] as const).map((column) =>
      index(`sessions_workspace_${t[column].name}_created`).on(
        t.workspaceId,
        t[column],
        t.createdAt.desc().nullsFirst(),
        t.id.desc().nullsFirst(),
      ),
    ),
  ],
);

export const ledgerEntries = pgTable(
  'ledger_entries',
  {
    id: primaryId(),
    ...auditTimes(),
    ...auditActors(),
    workspaceId: id('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    amount: int32('amount').notNull(),
    reason: ledgerReason('reason').notNull(),
    reasonDetails: varchar('reason_details', { length: 255 }),
    redemptionCodeId: id('redemption_code_id'),
    agentId: id('agent_id'),
    sessionId: id('session_id'),
    idempotencyKey: varchar('idempotency_key', { length: 255 }),
  },
  (t) => [
    // A session's ledger entry is the one pointing at it: at most one.
    uniqueIndex('ledger_entries_session').on(t.sessionId).where(sql`${t.sessionId} is not null`),
    // Serves the agent foreign key when an agent is deleted.
    index('ledger_entries_workspace_agent').on(t.workspaceId, t.agentId),
    // A credit's Idempotency-Key books it once, also after the key's 24 hours (POST /ledger/credits).
    uniqueIndex('ledger_entries_idempotency')
      .on(t.workspaceId, t.idempotencyKey)
      .where(sql`${t.idempotencyKey} is not null`),
    // Serves GET /ledger: a workspace's entries, newest first, and GET /usage's split hours.
    index('ledger_entries_workspace_created').on(
      t.workspaceId,
      t.createdAt.desc().nullsFirst(),
      t.id.desc().nullsFirst(),
    ),
    // The sign convention (docs/decisions.md, the ledger): usage spends credit, a refill adds it.
    check(
      'ledger_entries_amount_sign',
      sql`case when ${t.reason} in ('VOICE_USAGE', 'SMS_USAGE') then ${t.amount} <= 0 else ${t.amount} >= 0 end`,
    ),
    foreignKey({
      name: 'ledger_entries_session_fk',
      columns: [t.workspaceId, t.sessionId],
      foreignColumns: [sessions.workspaceId, sessions.id],
    }),
    foreignKey({
      name: 'ledger_entries_agent_fk',
      columns: [t.workspaceId, t.agentId],
      foreignColumns: [agents.workspaceId, agents.id],
    }),
  ],
);
