import { foreignKey, index, pgTable, text } from 'drizzle-orm/pg-core';
import { agents } from './agents.ts';
import { id, primaryId, timestamptz } from './columns.ts';
import { agentChangeOperation } from './enums.ts';
import { workspaces } from './workspaces.ts';

/**
 * The audit trail: one row per change to an agent, written by the statement that makes the change
 * (so a change and its row commit together or not at all). Append-only: the app role may only
 * insert and read it (db/roles.ts).
 */
export const agentChanges = pgTable(
  'agent_changes',
  {
    id: primaryId(),
    /** When: the agent's `updated_at` after the change, so an agent's entries never share a time. */
    createdAt: timestamptz('created_at').notNull().defaultNow(),
    workspaceId: id('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    agentId: id('agent_id').notNull(),
    /** The version the change made or published; null when it touched the agent alone. */
    agentVersionId: id('agent_version_id'),
    operation: agentChangeOperation('operation').notNull(),
    /** Who: the calling key's principal and the key itself (no foreign key: the trail outlives keys). */
    principalId: id('principal_id').notNull(),
    keyId: id('key_id').notNull(),
    /** The agent's ETag before (null for its creation) and after, as GET /agents/{agentId} sends it. */
    etagBefore: text('etag_before'),
    etagAfter: text('etag_after').notNull(),
  },
  (t) => [
    foreignKey({
      name: 'agent_changes_agent_fk',
      columns: [t.workspaceId, t.agentId],
      foreignColumns: [agents.workspaceId, agents.id],
    }).onDelete('cascade'),
    // Serves GET /agents/{agentId}/history: one agent's entries, newest first, stable under ties.
    index('agent_changes_agent_created').on(
      t.workspaceId,
      t.agentId,
      t.createdAt.desc().nullsFirst(),
      t.id.desc().nullsFirst(),
    ),
  ],
);
