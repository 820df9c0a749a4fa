import { date, doublePrecision, integer, pgTable } from 'drizzle-orm/pg-core';
import { id, timestamptz } from './columns.ts';
import { workspaces } from './workspaces.ts';

/**
 * Each workspace's token bucket and today's request count (contract/tiers.ts), taken by every route
 * request in one statement (db/queries/workspace-limits.ts); a row appears with a workspace's first
 * request and goes with the workspace.
 */
export const workspaceLimits = pgTable('workspace_limits', {
  workspaceId: id('workspace_id')
    .primaryKey()
    .references(() => workspaces.id, { onDelete: 'cascade' }),
  /** Tokens left at `refilled_at`; the tier's rate refills them up to its burst. */
  tokens: doublePrecision('tokens').notNull(),
  refilledAt: timestamptz('refilled_at').notNull(),
  /** The UTC day `used` counts. */
  day: date('day', { mode: 'string' }).notNull(),
  used: integer('used').notNull(),
});
