import { sql } from 'drizzle-orm';
import { bigint, index, jsonb, pgTable, uuid, varchar } from 'drizzle-orm/pg-core';
import { id, timestamptz } from './columns.ts';
import { workspaces } from './workspaces.ts';

/**
 * The outbox: one row per change, written in the change's own transaction (db/queries/events.ts),
 * read by GET /events in feed order and published by the relay. The feed's order is the writing
 * transaction's id, then `seq`: only transactions older than every one still running are shown
 * (docs/decisions.md), so a cursor never passes an event that commits later.
 */
export const events = pgTable(
  'events',
  {
    seq: bigint('seq', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    /** The event's stable id: a consumer's (and EventBridge's, webhooks') dedupe key. */
    id: uuid('id').notNull().unique().defaultRandom(),
    type: varchar('type', { length: 64 }).notNull(),
    occurredAt: timestamptz('occurred_at').notNull().defaultNow(),
    workspaceId: id('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    txid: bigint('txid', { mode: 'number' }).notNull().default(sql`(pg_current_xact_id()::text::bigint)`),
    data: jsonb('data').notNull(),
    /** When the relay's put succeeded; null while unpublished. */
    publishedAt: timestamptz('published_at'),
  },
  (t) => [
    // Serves GET /events: a workspace's feed from a position.
    index('events_workspace_position').on(t.workspaceId, t.txid, t.seq),
    // Serves the relay: what is left to publish, in feed order.
    index('events_unpublished').on(t.txid, t.seq).where(sql`${t.publishedAt} is null`),
    // Serves the purge: published events, oldest first (an insert, unpublished, adds nothing to it).
    index('events_published_age').on(t.occurredAt).where(sql`${t.publishedAt} is not null`),
  ],
);
